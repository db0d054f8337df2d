import { z } from "zod/v4";

import { ROLLUPS, rpcEnvironmentVariable, type ChainDefinition, type ChainRegistry } from "../domain/chains.js";

/**
 * The rules of a chain declared in configuration, written once: the Hardhat config's `tokenService.chains`
 * (src/hardhat/config.ts) and the environment's `TOKEN_SERVICE_CHAINS` (src/config/environment.ts) both check their
 * declarations with this schema, and report its issues at their own path. Pure: no Hardhat.
 */

/** A chain's or network's name: it is part of `TOKEN_SERVICE_RPC_<CHAIN>_<NETWORK>`, of URLs and of journal file names. */
const NAME = /^[a-z][a-z0-9_]{0,39}$/;
const NAME_RULE = "lowercase letters, digits and underscores, starting with a letter, at most 40 characters";

const chainName = z.string().regex(NAME, `a chain's name must be ${NAME_RULE}`);
const networkName = z.string().regex(NAME, `a network's name must be ${NAME_RULE}`);

const networkFields = {
  chainId: z
    .number({ error: "chainId must be a whole number, 1 or more" })
    .int("chainId must be a whole number, 1 or more")
    .min(1, "chainId must be a whole number, 1 or more")
    .max(Number.MAX_SAFE_INTEGER, `chainId must be at most ${Number.MAX_SAFE_INTEGER}`),
  note: z.string({ error: "note must be a string" }).max(200, "note must be at most 200 characters").optional(),
};

/** What a declared network may hold besides its chain id: an endpoint where the source may give one (the Hardhat config). */
export interface DeclarationOptions {
  /** The schema of a network's `rpc`; absent: a network takes no `rpc` (the environment gives it in TOKEN_SERVICE_RPC_*). */
  endpoint?: z.ZodType;
}

export interface DeclaredNetwork {
  chainId: number;
  note?: string;
  rpc?: unknown;
}

export interface DeclaredChain {
  nativeSymbol: string;
  nativeDecimals: number;
  rollup?: (typeof ROLLUPS)[number];
  networks: Record<string, DeclaredNetwork>;
}

export type DeclaredChains = Record<string, DeclaredChain>;

function chainSchema(options: DeclarationOptions) {
  const network = z.strictObject(
    { ...networkFields, ...(options.endpoint ? { rpc: options.endpoint.optional() } : {}) },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `unknown field ${issue.keys.join(", ")}: a network takes chainId${options.endpoint ? ", rpc" : ""} and note${options.endpoint ? "" : " (its endpoint goes in TOKEN_SERVICE_RPC_<CHAIN>_<NETWORK>)"}`
          : "a network must be an object like { chainId: 59144 }",
    },
  );
  return z.strictObject(
    {
      nativeSymbol: z
        .string({ error: "nativeSymbol is required: the native currency's symbol, e.g. ETH" })
        .regex(/^[A-Za-z0-9.$]{1,16}$/, "nativeSymbol must be 1 to 16 letters, digits, dots or $ signs, e.g. ETH"),
      nativeDecimals: z
        .number({ error: "nativeDecimals must be a whole number from 0 to 36" })
        .int("nativeDecimals must be a whole number from 0 to 36")
        .min(0, "nativeDecimals must be a whole number from 0 to 36")
        .max(36, "nativeDecimals must be a whole number from 0 to 36")
        .default(18),
      rollup: z.enum(ROLLUPS, { error: `rollup must be one of ${ROLLUPS.join(", ")} (or left out)` }).optional(),
      networks: z
        .record(networkName, network, { error: "networks must be an object of networks by name, e.g. { mainnet: { chainId: 59144 } }" })
        .refine((networks) => Object.keys(networks).length > 0, "networks must name at least one network"),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `unknown field ${issue.keys.join(", ")}: a chain takes nativeSymbol, nativeDecimals, rollup and networks`
          : 'a chain must be an object like { nativeSymbol: "ETH", networks: { mainnet: { chainId: 59144 } } }',
    },
  );
}

/**
 * Declared chains, checked against the chains already known (`known`: the built-in ones, and for the environment the
 * Hardhat config's): a declared chain may not take a known chain's name, a chain id already used, nor an endpoint
 * variable name another pair has.
 */
export function declaredChainsSchema(known: ChainRegistry, options: DeclarationOptions = {}): z.ZodType<DeclaredChains, unknown> {
  return z
    .record(chainName, chainSchema(options), {
      error: 'must be an object of chains by name, e.g. { linea: { nativeSymbol: "ETH", networks: { mainnet: { chainId: 59144 } } } }',
    })
    .superRefine((chains, context) => {
      const chainIds = new Map<number, string>();
      const variables = new Map<string, string>();
      for (const info of known.all()) {
        if (info.chainId !== undefined) chainIds.set(info.chainId, `${info.chain}/${info.network}`);
        variables.set(rpcEnvironmentVariable(info.chain, info.network), `${info.chain}/${info.network}`);
      }
      for (const [chain, definition] of Object.entries(chains)) {
        if (known.isChain(chain)) {
          context.addIssue({
            code: "custom",
            path: [chain],
            message: known.isBuiltIn(chain)
              ? `${chain} is built in (${known.networkNames(chain).join(", ")}): give its endpoints, not its declaration (docs/chains/)`
              : `${chain} is declared twice`,
          });
          continue;
        }
        for (const [network, { chainId }] of Object.entries(definition.networks)) {
          const pair = `${chain}/${network}`;
          const taken = chainIds.get(chainId);
          if (taken !== undefined) {
            context.addIssue({
              code: "custom",
              path: [chain, "networks", network, "chainId"],
              message: `chain id ${chainId} is already ${taken}'s: each chain id names one pair`,
            });
          } else chainIds.set(chainId, pair);
          const variable = rpcEnvironmentVariable(chain, network);
          const sharing = variables.get(variable);
          if (sharing !== undefined) {
            context.addIssue({
              code: "custom",
              path: [chain, "networks", network],
              message: `${pair} and ${sharing} would share the endpoint variable ${variable}: rename one`,
            });
          } else variables.set(variable, pair);
        }
      }
    }) as z.ZodType<DeclaredChains, unknown>;
}

/** Parse options that keep each issue's input, so that a message can quote a bad value (a declaration holds no secret). */
export const REPORT_INPUT = { reportInput: true } as const;

/** One issue as a person reads it: where (`linea.networks.mainnet.chainId`), then what is wrong, quoting a bad plain value. */
export function describeIssue(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  const message = issue.code === "invalid_key" ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  const input = issue.code === "invalid_key" ? issue.issues[0]?.input : issue.input;
  const plain = typeof input === "string" || typeof input === "number" || typeof input === "boolean";
  // An endpoint may hold a provider's key: never quoted.
  const quotable = plain && issue.code !== "custom" && !issue.path.includes("rpc");
  return { path: issue.path, message: quotable ? `${message} (got ${JSON.stringify(input)})` : message };
}

/** The dotted path of an issue under `root` (`tokenService.chains.linea.networks.mainnet.chainId`). */
export function issuePath(root: string, path: readonly PropertyKey[]): string {
  return [root, ...path.map(String)].filter(Boolean).join(".");
}

/** Declarations as the registry takes them, saying where they were declared. */
export function chainDefinitions(chains: DeclaredChains, declaredIn: string): Record<string, ChainDefinition> {
  return Object.fromEntries(
    Object.entries(chains).map(([name, chain]) => [
      name,
      {
        kind: "evm",
        nativeSymbol: chain.nativeSymbol,
        nativeDecimals: chain.nativeDecimals,
        networks: Object.fromEntries(
          Object.entries(chain.networks).map(([network, entry]) => [
            network,
            { chainId: entry.chainId, ...(entry.note !== undefined ? { note: entry.note } : {}) },
          ]),
        ),
        ...(chain.rollup !== undefined ? { rollup: chain.rollup } : {}),
        declaredIn,
      } satisfies ChainDefinition,
    ]),
  );
}
