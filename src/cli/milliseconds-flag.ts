import { UsageError } from './usage-error.js';

/** yargs `coerce` for a time limit in ms (`--timeout`, `--search-timeout`): a whole number of at least 1. */
export function milliseconds(flag: string) {
  return (value: unknown): number => {
    const ms = typeof value === 'number' ? value : Number(value);
    if (!Number.isSafeInteger(ms) || ms < 1)
      throw new UsageError(`--${flag} must be a whole number of milliseconds of at least 1, got ${String(value)}`);
    return ms;
  };
}
