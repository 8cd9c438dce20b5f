// What every benchmark script shares: integer settings from the environment, and the median.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** An integer setting from the environment (e.g. BENCH_ROUNDS), with a clear error for a bad value. */
export function intEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${raw}`);
  return n;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/** The machine's 1-minute load average, printed beside every ratio: on a shared VM it says how far to trust it. */
export const loadNow = (): number => loadavg()[0] ?? 0;

/**
 * A ratio against the reference measured in the same round (Gatehouse / minimal reference), kept
 * round by round: `add` returns the round's line (ratio and load), `summary` the median and range.
 * Absolute rates on a shared machine move with its load; a ratio within a round shares its moment.
 */
export class RoundRatios {
  private readonly rounds: Array<{ ratio: number; load: number }> = [];
  constructor(
    readonly label: string,
    /** e.g. '≥ 0.8' or '≤ 4' */
    readonly target?: string,
  ) {}

  add(numerator: number, denominator: number): string {
    const ratio = numerator / denominator;
    const load = loadNow();
    this.rounds.push({ ratio, load });
    return `  round ${this.rounds.length}: ${this.label} ${ratio.toFixed(2)} (load ${load.toFixed(1)})`;
  }

  get median(): number {
    return median(this.rounds.map((r) => r.ratio));
  }

  summary(): string {
    if (this.rounds.length === 0) return `${this.label}: no rounds`;
    const ratios = this.rounds.map((r) => r.ratio);
    const loads = this.rounds.map((r) => r.load);
    return (
      `${this.label}: median ${this.median.toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}: ` +
      `${ratios.map((r) => r.toFixed(2)).join(', ')}), load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}` +
      (this.target ? `; target ${this.target}` : '')
    );
  }
}

/** CPU seconds (user + system, every thread) a process has used so far, from /proc; 0 where unreadable. */
export function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // utime and stime: fields 14 and 15, counted after the ")" that ends the command name.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ on Linux
  } catch {
    return 0;
  }
}
