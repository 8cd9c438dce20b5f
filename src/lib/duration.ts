// Durations in config and API input: "90s", "15m", "1h", "7d", or combinations like "1h30m".
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+)(ms|s|m|h|d)/g;
export const DURATION_PATTERN = '^(\\d+(ms|s|m|h|d))+$';

export function parseDuration(text: string): number | undefined {
  if (!new RegExp(DURATION_PATTERN).test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(PART)) total += Number(m[1]) * (UNITS[m[2] as string] as number);
  return total;
}
