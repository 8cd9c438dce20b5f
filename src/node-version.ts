// Stops the process at once, with one line, on a Node.js release Gatehouse is not tested on, rather
// than letting it abort later (Node 24 kills the process when a native statement is collected:
// docs/operations.md, "Node versions"). Imported first by main.ts, so it runs before any native addon loads.

/** Majors the suite runs on in CI; keep in step with package.json `engines` and .ci/run. */
export const SUPPORTED_NODE = { 20: 6, 22: 0 } as Record<number, number>;

/** Why this Node cannot run Gatehouse, or undefined when it can. */
export function unsupportedNode(version: string): string | undefined {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const minMinor = SUPPORTED_NODE[major];
  if (minMinor !== undefined && minor >= minMinor) return undefined;
  return `Node.js ${version} is not supported: use Node 20 (20.6 or later) or 22 (docs/operations.md, "Node versions"); set GATEHOUSE_ALLOW_UNSUPPORTED_NODE=1 to try anyway`;
}

const reason = unsupportedNode(process.versions.node);
if (reason && process.env.GATEHOUSE_ALLOW_UNSUPPORTED_NODE !== '1') {
  process.stderr.write(`gatehouse: ${reason}\n`);
  process.exit(1);
}
