import { pino, type DestinationStream, type Logger } from "pino";

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

export function createLogger(destination?: DestinationStream, level = process.env.LOG_LEVEL ?? "info"): Logger {
  const options = { level, base: { service: "hardhat-token-service" }, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } };
  return destination ? pino(options, destination) : pino(options);
}
