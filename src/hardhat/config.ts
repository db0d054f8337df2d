import path from "node:path";
import type { HardhatUserConfig } from "hardhat/config";
import type { ConfigurationVariableResolver, HardhatConfig } from "hardhat/types/config";
import type { HardhatUserConfigValidationError } from "hardhat/types/hooks";

import { sensitiveUrlSchema, validateUserConfigZodType } from "@nomicfoundation/hardhat-zod-utils";
// zod 3 here, as hardhat-zod-utils (a peer of zod ^3) and Hardhat itself use: in a Hardhat project the package's zod
// is the one Hardhat already installed. The HTTP schemas import zod 4 from the same package, as "zod/v4".
import { z } from "zod";

import { HARDHAT_CONFIG_FIELD_NAMES, type TokenServiceConfigField } from "../config/hardhat-config-fields.js";
import { EVM_CHAIN_NAMES, networkNames } from "../domain/chains.js";

const CHAINS_WITH_RPC = EVM_CHAIN_NAMES.join(" or ");

/** "rpc, dataDir and blockTime": the fields of src/config/hardhat-config-fields.ts. */
const fieldList = (last: "and" | "or") =>
  `${HARDHAT_CONFIG_FIELD_NAMES.slice(0, -1).join(", ")} ${last} ${HARDHAT_CONFIG_FIELD_NAMES.at(-1)}`;

/** Refuses any key of an object the shape does not name, at that key's own path, with `message` (a `never` catchall would strip it). */
const unknownKey = (message: string) => z.unknown().refine(() => false, { message });

/** One endpoint, or several tried in order. */
const endpointsSchema = z.union([sensitiveUrlSchema, z.array(sensitiveUrlSchema).nonempty()], {
  errorMap: () => ({ message: "Expected a URL, a configuration variable, or a non-empty list of them (tried in that order)." }),
});

const rpcSchema = z
  .object(
    Object.fromEntries(
      EVM_CHAIN_NAMES.map((chain) => [
        chain,
        z
          .object(Object.fromEntries(networkNames(chain).map((network) => [network, endpointsSchema.optional()])))
          .catchall(unknownKey(`Expected one of: ${networkNames(chain).join(", ")}.`))
          .optional(),
      ]),
    ),
    { errorMap: () => ({ message: `Expected an object keyed by chain (${CHAINS_WITH_RPC}).` }) },
  )
  .catchall(unknownKey(`Expected ${CHAINS_WITH_RPC}.`));

const secondsSchema = z
  .number({ errorMap: () => ({ message: "Expected a number of seconds, 0 or more." }) })
  .finite()
  .min(0);

/** One schema per described field (src/config/hardhat-config-fields.ts): a field added here must be described there. */
const tokenServiceFields = {
  rpc: rpcSchema.optional(),
  dataDir: z.string({ errorMap: () => ({ message: "Expected a non-empty path." }) }).min(1),
  blockTime: secondsSchema,
} satisfies Record<TokenServiceConfigField, z.ZodTypeAny>;

const tokenServiceSchema = z
  .object(tokenServiceFields, { errorMap: () => ({ message: `Expected an object with optional ${fieldList("and")}.` }) })
  .partial({ dataDir: true, blockTime: true })
  .catchall(unknownKey(`Unknown field: expected ${fieldList("or")}.`));

const userConfigSchema = z.object({ tokenService: tokenServiceSchema.optional() });

export async function validateTokenServiceConfig(userConfig: HardhatUserConfig): Promise<HardhatUserConfigValidationError[]> {
  return validateUserConfigZodType(userConfig, userConfigSchema);
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
  for (const [chain, networks] of Object.entries(user.rpc ?? {})) {
    for (const [network, url] of Object.entries(networks)) {
      const pair = `${chain}/${network}`;
      if (Array.isArray(url)) {
        rpc[pair] = url.map((entry) => resolveConfigurationVariable(entry));
        rpcVariables[pair] = url.map(variableOf);
        continue;
      }
      rpc[pair] = resolveConfigurationVariable(url);
      const variable = variableOf(url);
      if (variable !== undefined) rpcVariables[pair] = variable;
    }
  }
  return {
    ...resolved,
    tokenService: {
      rpc,
      rpcVariables,
      dataDir: path.resolve(resolved.paths.root, user.dataDir ?? ".token-service"),
      blockTime: user.blockTime ?? 2,
    },
  };
}
