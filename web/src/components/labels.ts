// Labels as people type them ("env=dev, team=infra") and as the API takes them ({env: "dev"}).
export function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const part of text.split(',')) {
    const [k, ...rest] = part.split('=');
    const key = k?.trim();
    if (key) labels[key] = rest.join('=').trim();
  }
  return labels;
}

export function formatLabels(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

export function parseList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
