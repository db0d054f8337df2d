import { BUILT_IN_CHAINS, type ChainDefinition, type ChainRegistry } from "../domain/chains.js";
import { chainDefinitions, declaredChainsSchema, describeIssue, issuePath, REPORT_INPUT } from "./chain-declarations.js";
import { EnvironmentError, readVariable } from "./environment.js";

export interface ChainRegistryOptions {
  /** Chains the door's own configuration declares (the Hardhat config's `tokenService.chains`), already checked. */
  configured?: Readonly<Record<string, ChainDefinition>>;
  /** Where `TOKEN_SERVICE_CHAINS` is read. */
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The chains a service serves: the built-in ones, those its configuration declares, and those `TOKEN_SERVICE_CHAINS`
 * declares (which replace configured ones of the same name, as the environment wins over the config file elsewhere).
 * A bad or clashing `TOKEN_SERVICE_CHAINS` is an EnvironmentError naming it and the field at fault.
 */
export function chainRegistry(options: ChainRegistryOptions): ChainRegistry {
  const fromEnv = readVariable(options.env, "TOKEN_SERVICE_CHAINS");
  const configured = Object.fromEntries(Object.entries(options.configured ?? {}).filter(([name]) => !Object.hasOwn(fromEnv, name)));
  const known = BUILT_IN_CHAINS.withDeclared(configured);
  if (Object.keys(fromEnv).length === 0) return known;
  // Checked against the built-in chains when read; now against the configured ones too (their chain ids, their names).
  const checked = declaredChainsSchema(known).safeParse(fromEnv, REPORT_INPUT);
  if (!checked.success) {
    const { path, message } = describeIssue(checked.error.issues[0]!);
    throw new EnvironmentError(
      `TOKEN_SERVICE_CHAINS at ${issuePath("", path)}: ${message} (beside the chains of tokenService.chains)`,
      "TOKEN_SERVICE_CHAINS",
    );
  }
  return known.withDeclared(chainDefinitions(checked.data, "TOKEN_SERVICE_CHAINS"));
}
