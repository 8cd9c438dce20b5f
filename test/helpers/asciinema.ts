// Plays casts with the real `asciinema cat` (Debian's asciinema), run under `script` because it
// insists on a terminal.
import { spawnSync } from 'node:child_process';

/** Why `asciinema cat` cannot run here, or undefined when it can. */
export function asciinemaMissing(): string | undefined {
  for (const [cmd, args] of [
    ['asciinema', ['--version']],
    ['script', ['--version']],
  ] as const) {
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.error || r.status !== 0) return `${cmd} is not installed (apt-get install -y asciinema bsdutils)`;
  }
  return undefined;
}

/** Plays a cast with the real `asciinema cat` inside a pseudo-terminal; returns what it printed. */
export function asciinemaCat(path: string): { status: number | null; stdout: string } {
  const r = spawnSync('script', ['-qec', `asciinema cat '${path.replace(/'/g, `'\\''`)}'`, '/dev/null'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout };
}
