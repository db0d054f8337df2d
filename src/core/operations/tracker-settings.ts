import type { DecidePolicy } from "./decide.js";

// The tracker's settings and their defaults (the HTTP service reads them from the environment: src/config/variables.ts).

/** The tracker's settings: how records are judged (`DecidePolicy`: confirmations, drop and reorg windows), and its pace. */
export interface TrackerSettings extends DecidePolicy {
  /** How long a tracker holds a record; another replica may take it over afterwards. */
  leaseMs: number;
  /** How often an idle tracker asks the store for due records. */
  idlePollMs: number;
  /**
   * Follow only the records this process made (a task beside a running service leaves the service's records to it);
   * what it leaves unfinished, the service's tracker follows.
   */
  ownRecordsOnly?: boolean;
}

export const DEFAULT_TRACKER_SETTINGS: TrackerSettings = {
  confirmations: 1,
  dropAfterMs: 10 * 60_000,
  reorgWatchMs: 60 * 60_000,
  behindGraceMs: 30_000,
  leaseMs: 30_000,
  idlePollMs: 250,
};
