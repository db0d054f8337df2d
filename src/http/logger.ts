import { pino, type DestinationStream, type Logger } from "pino";

import { readVariable } from "../config/environment.js";

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
