// `*` globs, as role selectors, database users and Kubernetes rules write them: `*` matches any run of
// characters (including none), everything else matches itself. Compiled once per pattern.
const globCache = new Map<string, RegExp>();

export function globMatch(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  let re = globCache.get(pattern);
  if (!re) {
    const escaped = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    re = new RegExp(`^${escaped.join('.*')}$`, 's');
    if (globCache.size > 10_000) globCache.clear();
    globCache.set(pattern, re);
  }
  return re.test(value);
}
