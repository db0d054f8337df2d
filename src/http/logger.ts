import { pino, type DestinationStream, type Logger } from "pino";

import { readVariable } from "../config/environment.js";
import type { NonceHealing } from "../core/operations/nonce-healing.js";

/** Paths whose values never reach a log line, wherever they appear. */
export const REDACTED_PATHS = [
  "privateKey",
  "*.privateKey",
  "*.*.privateKey",
  "apiKey",
  "*.apiKey",
  "key",
  "*.key",
  "headers.authorization",
  'headers["x-api-key"]',
  "*.headers.authorization",
  '*.headers["x-api-key"]',
];

export function createLogger(destination?: DestinationStream, level: string = readVariable(process.env, "LOG_LEVEL")): Logger {
  const options = { level, base: { service: "hardhat-token-service" }, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * One line per nonce healing of the tracker: `warn` when an operation failed for it (another transaction took its
 * nonce) or a gap has nothing to fill it, `info` when the service sent or filled what was missing.
 */
export function logNonceHealing(logger: Logger, healing: NonceHealing): void {
  const { detail, ...fields } = healing;
  const level = healing.kind === "nonce-taken" || healing.kind === "gap-unfilled" ? "warn" : "info";
  logger[level]({ nonceHealing: fields }, `nonce ${healing.nonce} of ${healing.sender} on ${healing.chain}/${healing.network}: ${detail}`);
}
