import type { TrackerSettings } from "../operations/tracker.js";

const VARIABLES = {
  confirmations: ["TOKEN_SERVICE_CONFIRMATIONS", 1],
  dropAfterMs: ["TOKEN_SERVICE_DROP_AFTER_SECONDS", 1000],
  reorgWatchMs: ["TOKEN_SERVICE_REORG_WATCH_SECONDS", 1000],
  leaseMs: ["TOKEN_SERVICE_LEASE_SECONDS", 1000],
} as const;

/** A positive duration from the environment, in milliseconds (`unitSeconds` seconds per unit); undefined when unset. */
export function secondsFromEnv(env: NodeJS.ProcessEnv, variable: string, unitSeconds = 1): number | undefined {
  const raw = env[variable];
  if (raw === undefined || raw === "") return undefined;
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || Number(raw) <= 0) throw new Error(`${variable}=${raw} is not valid: expected a positive number`);
  return Number(raw) * unitSeconds * 1000;
}

/** The operation tracker's settings given in the environment; a bad value stops the start, naming the variable. */
export function trackerSettingsFromEnv(env: NodeJS.ProcessEnv): Partial<TrackerSettings> {
  const settings: Partial<TrackerSettings> = {};
  for (const [field, [variable, scale]] of Object.entries(VARIABLES) as [keyof typeof VARIABLES, (typeof VARIABLES)[keyof typeof VARIABLES]][]) {
    const raw = env[variable];
    if (raw === undefined || raw === "") continue;
    const value = Number(raw);
    const minimum = field === "confirmations" ? 1 : 0;
    if (!/^\d+(\.\d+)?$/.test(raw.trim()) || value < minimum || (field === "confirmations" && !Number.isInteger(value))) {
      throw new Error(`${variable}=${raw} is not valid: expected ${field === "confirmations" ? "a whole number, 1 or more" : "a number of seconds"}`);
    }
    settings[field] = value * scale;
  }
  return settings;
}
