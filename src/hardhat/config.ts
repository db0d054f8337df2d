import path from "node:path";
import type { HardhatUserConfig } from "hardhat/config";
import type { ConfigurationVariable, ConfigurationVariableResolver, HardhatConfig } from "hardhat/types/config";
import type { HardhatUserConfigValidationError } from "hardhat/types/hooks";

import { sensitiveUrlSchema, validateUserConfigZodType } from "@nomicfoundation/hardhat-zod-utils";
// zod 3 here, as hardhat-zod-utils (a peer of zod ^3) and Hardhat itself use: in a Hardhat project the package's zod
// is the one Hardhat already installed. The HTTP schemas import zod 4 from the same package, as "zod/v4"; so do the
// rules of a declared chain (src/config/chain-declarations.ts), shared with TOKEN_SERVICE_CHAINS.
import { z } from "zod";
import { z as z4 } from "zod/v4";

import { chainDefinitions, declaredChainsSchema, describeIssue, REPORT_INPUT, type DeclaredChains } from "../config/chain-declarations.js";
import { HARDHAT_CONFIG_FIELD_NAMES, type TokenServiceConfigField } from "../config/hardhat-config-fields.js";
import { BUILT_IN_CHAINS } from "../domain/chains.js";
import { parseGwei } from "../domain/fee-ladder.js";

/** "rpc, chains, dataDir and blockTime": the fields of src/config/hardhat-config-fields.ts. */
const fieldList = (last: "and" | "or") =>
  `${HARDHAT_CONFIG_FIELD_NAMES.slice(0, -1).join(", ")} ${last} ${HARDHAT_CONFIG_FIELD_NAMES.at(-1)}`;

/** Refuses any key of an object the shape does not name, at that key's own path, with `message` (a `never` catchall would strip it). */
const unknownKey = (message: string) => z.unknown().refine(() => false, { message });

/** One endpoint, or several tried in order. */
const endpointsSchema = z.union([sensitiveUrlSchema, z.array(sensitiveUrlSchema).nonempty()], {
  errorMap: () => ({ message: "Expected a URL, a configuration variable, or a non-empty list of them (tried in that order)." }),
});

/** `tokenService.rpc`, keyed by the EVM chains: the built-in ones and those `tokenService.chains` declares (`declared`). */
function rpcSchema(declared: Record<string, string[]>) {
  return pairKeyedSchema(declared, endpointsSchema);
}

/** A value per EVM pair, `{ [chain]: { [network]: value } }`, keyed by the built-in chains and those `declared`. */
function pairKeyedSchema(declared: Record<string, string[]>, value: z.ZodTypeAny) {
  const chains: Record<string, string[]> = {
    ...Object.fromEntries(BUILT_IN_CHAINS.evmNames.map((chain) => [chain, BUILT_IN_CHAINS.networkNames(chain)])),
    ...declared,
  };
  const names = Object.keys(chains).join(", ");
  return z
    .object(
      Object.fromEntries(
        Object.entries(chains).map(([chain, networks]) => [
          chain,
          z
            .object(Object.fromEntries(networks.map((network) => [network, value.optional()])))
            .catchall(unknownKey(`Expected one of: ${networks.join(", ")}.`))
            .optional(),
        ]),
      ),
      { errorMap: () => ({ message: `Expected an object keyed by chain (${names}).` }) },
    )
    .catchall(unknownKey(`Expected an EVM chain: ${names}, or one declared in tokenService.chains.`));
}

/** A fee ceiling in gwei: a number (`40`, `0.05`) or the same as a string, above 0, with at most 9 decimals. */
const gweiSchema = z.union([z.number(), z.string()]).refine((value) => (parseGwei(String(value)) ?? 0n) > 0n, {
  message: "Expected gwei above 0, with at most 9 decimals (40, 0.05, or the same as a string).",
});

const blocksSchema = z
  .number({ errorMap: () => ({ message: "Expected a whole number of blocks, 1 or more." }) })
  .refine((value) => Number.isInteger(value) && value >= 1, { message: "Expected a whole number of blocks, 1 or more." });

const secondsSchema = z
  .number({ errorMap: () => ({ message: "Expected a number of seconds, 0 or more." }) })
  .finite()
  .min(0);

/** One schema per described field (src/config/hardhat-config-fields.ts): a field added here must be described there. */
const tokenServiceFields = (declared: Record<string, string[]>) =>
  ({
    rpc: rpcSchema(declared).optional(),
    // Checked on its own below, by the rules TOKEN_SERVICE_CHAINS shares.
    chains: z.unknown().optional(),
    dataDir: z.string({ errorMap: () => ({ message: "Expected a non-empty path." }) }).min(1),
    blockTime: secondsSchema,
    feeCaps: pairKeyedSchema(declared, gweiSchema).optional(),
    replaceAfterBlocks: pairKeyedSchema(declared, blocksSchema).optional(),
  }) satisfies Record<TokenServiceConfigField, z.ZodTypeAny>;

const tokenServiceSchema = (declared: Record<string, string[]>) =>
  z
    .object(tokenServiceFields(declared), {
      errorMap: () => ({ message: `Expected an object with optional ${fieldList("and")}.` }),
    })
    .partial({ dataDir: true, blockTime: true })
    .catchall(unknownKey(`Unknown field: expected ${fieldList("or")}.`));

/** A network's `rpc` in `tokenService.chains`: what Hardhat takes as a network's `url`. */
const endpointSchema = z4.custom((value) => sensitiveUrlSchema.safeParse(value).success, {
  error: 'rpc must be a URL or a configuration variable (configVariable("NAME"))',
});

const chainsSchema = declaredChainsSchema(BUILT_IN_CHAINS, { endpoint: endpointSchema });

/** The chains and networks `tokenService.chains` names, as far as its shape lets them be read (for `rpc`'s keys). */
function declaredNetworks(chains: unknown): Record<string, string[]> {
  if (typeof chains !== "object" || chains === null || Array.isArray(chains)) return {};
  return Object.fromEntries(
    Object.entries(chains)
      .filter(([chain]) => !BUILT_IN_CHAINS.isChain(chain))
      .map(([chain, definition]) => {
        const networks = (definition as { networks?: unknown } | null)?.networks;
        return [chain, typeof networks === "object" && networks !== null ? Object.keys(networks) : []];
      }),
  );
}

const CHAINS_PATH = ["tokenService", "chains"];

function chainsErrors(userConfig: HardhatUserConfig): HardhatUserConfigValidationError[] {
  const chains = userConfig.tokenService?.chains;
  if (chains === undefined) return [];
  const parsed = chainsSchema.safeParse(chains, REPORT_INPUT);
  const errors: HardhatUserConfigValidationError[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => {
        const { path, message } = describeIssue(issue);
        return { path: [...CHAINS_PATH, ...path.map((key) => (typeof key === "number" ? key : String(key)))], message };
      });
  // One endpoint per pair: given in both places, which one was meant is unknown.
  for (const [chain, definition] of Object.entries(parsed.success ? parsed.data : {})) {
    for (const [network, entry] of Object.entries(definition.networks)) {
      if (entry.rpc !== undefined && userConfig.tokenService?.rpc?.[chain]?.[network] !== undefined) {
        errors.push({
          path: ["tokenService", "rpc", chain, network],
          message: `${chain}/${network}'s endpoint is also tokenService.chains.${chain}.networks.${network}.rpc: give it once`,
        });
      }
    }
  }
  return errors;
}

export async function validateTokenServiceConfig(userConfig: HardhatUserConfig): Promise<HardhatUserConfigValidationError[]> {
  const declared = declaredNetworks(userConfig.tokenService?.chains);
  return [
    ...validateUserConfigZodType(userConfig, z.object({ tokenService: tokenServiceSchema(declared).optional() })),
    ...chainsErrors(userConfig),
  ];
}

export async function resolveTokenServiceConfig(
  userConfig: HardhatUserConfig,
  resolved: HardhatConfig,
  resolveConfigurationVariable: ConfigurationVariableResolver,
): Promise<HardhatConfig> {
  const user = userConfig.tokenService ?? {};
  const rpc: HardhatConfig["tokenService"]["rpc"] = {};
  const rpcVariables: HardhatConfig["tokenService"]["rpcVariables"] = {};
  const variableOf = (url: unknown) => (typeof url === "object" && url !== null && "name" in url ? String(url.name) : undefined);
  const addEndpoint = (pair: string, url: string | ConfigurationVariable | Array<string | ConfigurationVariable>) => {
    if (Array.isArray(url)) {
      rpc[pair] = url.map((entry) => resolveConfigurationVariable(entry));
      rpcVariables[pair] = url.map(variableOf);
      return;
    }
    rpc[pair] = resolveConfigurationVariable(url);
    const variable = variableOf(url);
    if (variable !== undefined) rpcVariables[pair] = variable;
  };
  // Validated: the schema's defaults (nativeDecimals 18) filled in.
  const chains: DeclaredChains = user.chains === undefined ? {} : chainsSchema.parse(user.chains);
  for (const [chain, definition] of Object.entries(chains)) {
    for (const [network, entry] of Object.entries(definition.networks)) {
      if (entry.rpc !== undefined) addEndpoint(`${chain}/${network}`, entry.rpc as string | ConfigurationVariable);
    }
  }
  for (const [chain, networks] of Object.entries(user.rpc ?? {})) {
    for (const [network, url] of Object.entries(networks)) addEndpoint(`${chain}/${network}`, url);
  }
  const byPair = <T, R>(values: Record<string, Record<string, T>> | undefined, as: (value: T) => R) =>
    Object.fromEntries(
      Object.entries(values ?? {}).flatMap(([chain, networks]) =>
        Object.entries(networks).map(([network, value]): [string, R] => [`${chain}/${network}`, as(value)]),
      ),
    );
  return {
    ...resolved,
    tokenService: {
      rpc,
      rpcVariables,
      chains: chainDefinitions(chains, "tokenService.chains"),
      dataDir: path.resolve(resolved.paths.root, user.dataDir ?? ".token-service"),
      blockTime: user.blockTime ?? 2,
      feeCaps: byPair(user.feeCaps, String),
      replaceAfterBlocks: byPair(user.replaceAfterBlocks, Number),
    },
  };
}
