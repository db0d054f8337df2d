import ipaddr from "ipaddr.js";
import { z } from "zod/v4";

import { BUILT_IN_CHAINS } from "../domain/chains.js";
import { type DeclaredChains, declaredChainsSchema, describeIssue, issuePath, REPORT_INPUT } from "./chain-declarations.js";

// The kinds of value the environment's variables take, each a schema that parses the text as set (undefined when
// unset or empty) and says in its message what a good value looks like.

export function wholeNumber(defaultValue: number, minimum = 0) {
  return z
    .string()
    .trim()
    .regex(/^\d{1,9}$/, "must be a whole number, 0 or more")
    .transform(Number)
    .optional()
    .transform((value) => value ?? defaultValue)
    .refine((value) => value >= minimum, `must be ${minimum} or more`);
}

const SECONDS = /^\d{1,9}(\.\d{1,3})?$/;
const SECONDS_MESSAGE = "must be a number of seconds, like 30 or 0.5";

/** Seconds as typed, in milliseconds. */
export function seconds(defaultSeconds: number, { allowZero }: { allowZero: boolean }) {
  return z
    .string()
    .trim()
    .regex(SECONDS, SECONDS_MESSAGE)
    .transform(Number)
    .refine((value) => allowZero || value > 0, "must be more than 0 seconds")
    .optional()
    .transform((value) => Math.round((value ?? defaultSeconds) * 1000));
}

export const optionalSeconds = z
  .string()
  .trim()
  .regex(SECONDS, SECONDS_MESSAGE)
  .transform(Number)
  .refine((value) => value > 0, "must be more than 0 seconds")
  .transform((value) => Math.round(value * 1000))
  .optional();

export const trueOrFalse = z
  .enum(["true", "false"], { error: "must be true or false" })
  .optional()
  .transform((value) => value === "true");

const NAMED_PROXY_RANGES = new Set(["loopback", "linklocal", "uniquelocal"]);

/**
 * Express's `trust proxy`, never "trust everything": off, a number of hops, or proxy addresses and ranges (checked by
 * ipaddr.js, as proxy-addr will read them).
 */
export const trustProxy = z
  .string()
  .trim()
  .optional()
  .transform((value, context): false | number | string[] => {
    if (value === undefined || value === "" || value === "false" || value === "off" || value === "0") return false;
    if (value === "true") {
      context.addIssue({
        code: "custom",
        message:
          "must not be true: that would believe any client about its own address; give the number of proxies in front of the service (1) or their addresses",
      });
      return z.NEVER;
    }
    if (/^\d{1,2}$/.test(value)) return Number(value);
    const entries = value.split(",").map((entry) => entry.trim());
    const bad = entries.find((entry) => !NAMED_PROXY_RANGES.has(entry) && !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry));
    if (bad !== undefined) {
      context.addIssue({
        code: "custom",
        message: `must be a number of proxies or proxy addresses and ranges (${bad} is neither an address, a range nor loopback/linklocal/uniquelocal)`,
      });
      return z.NEVER;
    }
    return entries;
  });

export function url(protocols: string[], example: string) {
  return z
    .string()
    .trim()
    .refine((value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    }, `must be a URL like ${example}`)
    .optional();
}

/** The entries of a comma-separated list of endpoints, trimmed (an empty entry stays, for the schema to refuse). */
export function endpointList(value: string): string[] {
  return value.split(",").map((entry) => entry.trim());
}

/** One URL, or several separated by commas (tried in that order); the value is kept as written, trimmed. */
export function urlList(protocols: string[], example: string) {
  const single = url(protocols, example);
  return z
    .string()
    .trim()
    .superRefine((value, context) => {
      const entries = endpointList(value);
      const message = `must be a URL like ${example}, or several separated by commas`;
      if (entries.length === 1) {
        if (!single.safeParse(value).success) context.addIssue({ code: "custom", message });
        return;
      }
      const bad = entries.findIndex((entry) => entry === "" || !single.safeParse(entry).success);
      if (bad !== -1) {
        context.addIssue({
          code: "custom",
          message: `${message} (entry ${bad + 1} of ${entries.length} is ${entries[bad] === "" ? "empty" : "not one"})`,
        });
        return;
      }
      const repeated = entries.findIndex((entry, index) => entries.indexOf(entry) !== index);
      if (repeated !== -1) {
        context.addIssue({
          code: "custom",
          message: `must list each endpoint once (entry ${repeated + 1} repeats entry ${entries.indexOf(entries[repeated]!) + 1})`,
        });
      }
    })
    .optional();
}

/** Chains declared as JSON (`{"linea": {"nativeSymbol": "ETH", "networks": {"mainnet": {"chainId": 59144}}}}`). */
export const declaredChains = z
  .string()
  .optional()
  .transform((value, context): DeclaredChains => {
    if (value === undefined) return {};
    let json: unknown;
    try {
      json = JSON.parse(value);
    } catch (error) {
      context.addIssue({ code: "custom", message: `must be JSON (${(error as Error).message})` });
      return z.NEVER;
    }
    const parsed = declaredChainsSchema(BUILT_IN_CHAINS).safeParse(json, REPORT_INPUT);
    if (parsed.success) return parsed.data;
    const { path, message } = describeIssue(parsed.error.issues[0]!);
    context.addIssue({ code: "custom", message: path.length === 0 ? message : `at ${issuePath("", path)}: ${message}` });
    return z.NEVER;
  });

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
