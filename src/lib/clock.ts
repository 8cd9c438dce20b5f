// Time is a dependency, so that expiry can be exercised without waiting.
export type Clock = () => number;
export const systemClock: Clock = () => Date.now();
export const isoTime = (ms: number): string => new Date(ms).toISOString();
