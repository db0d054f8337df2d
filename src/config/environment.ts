import { BUILT_IN_CHAINS } from "../domain/chains.js";
import { chainDefinitions } from "./chain-declarations.js";
import { type EnvironmentValues, type ValueOf, type VariableName, VARIABLES, type VariableSpec } from "./variables.js";
import {
  API_KEY_VARIABLE,
  FAMILIES,
  type FamilyName,
  MNEMONIC_VARIABLE,
  NEW_PASSPHRASE_VARIABLE,
  PRIVATE_KEY_VARIABLE,
} from "./variable-families.js";

/**
 * Every environment variable the package reads, in one schema: its name (or the pattern of a family of names), type,
 * default, meaning and which doors read it (variables.ts, variable-families.ts, their value types in
 * variable-values.ts). Everything reads the environment through this module (the Hardhat project's own configuration
 * variables, such as a network's `configVariable("SEPOLIA_RPC_URL")`, are Hardhat's); docs/reference/configuration.md
 * is generated from the schema (`npm run generate:docs`). A bad value is refused with an EnvironmentError that names
 * the variable and, unless the value may hold a secret, quotes it.
 *
 * Pure: no Hardhat, no Express, no store.
 */

/** A setting the environment gives a bad value; the message names the variable. */
export class EnvironmentError extends Error {
  constructor(
    message: string,
    readonly variable: string,
  ) {
    super(message);
    this.name = "EnvironmentError";
  }
}

type Environment = Readonly<Record<string, string | undefined>>;

// Empty counts as unset, as docker-compose and .env files leave unset variables.
function rawValue(env: Environment, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value;
}

function parse<T>(spec: VariableSpec<T>, name: string, env: Environment): T {
  const value = rawValue(env, name);
  const parsed = spec.schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const quoted = value === undefined || spec.secret || spec.structured ? "" : ` (got ${JSON.stringify(value)})`;
  throw new EnvironmentError(`${name} ${issue.message}${quoted}`, name);
}

/** One variable, checked; undefined or its default when unset. */
export function readVariable<N extends VariableName>(env: Environment, name: N): ValueOf<N> {
  return parse(VARIABLES[name] as VariableSpec<ValueOf<N>>, name, env);
}

/** One variable of a family (e.g. `TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA`), checked; undefined when unset. */
export function readFamilyVariable(env: Environment, family: FamilyName, name: string): string | undefined {
  return parse(FAMILIES[family], name, env);
}

/** Whether a variable has a value (empty counts as unset), good or bad. */
export function isVariableSet(env: Environment, name: string): boolean {
  return rawValue(env, name) !== undefined;
}

/** The variable `chain:fault --api-key-env` names: undefined when unset. */
export function readApiKeyVariable(env: Environment, name: string): string | undefined {
  return parse(API_KEY_VARIABLE, name, env);
}

/** The variable `custody:restore --mnemonic-env` names: undefined when unset. */
export function readMnemonicVariable(env: Environment, name: string): string | undefined {
  return parse(MNEMONIC_VARIABLE, name, env);
}

/** The variable `custody:passphrase --new-passphrase-env` names: undefined when unset. */
export function readNewPassphraseVariable(env: Environment, name: string): string | undefined {
  return parse(NEW_PASSPHRASE_VARIABLE, name, env);
}

/** The variable a task's `--private-key-env` names: undefined when unset. */
export function readPrivateKeyVariable(env: Environment, name: string): string | undefined {
  return parse(PRIVATE_KEY_VARIABLE, name, env);
}

/**
 * Every variable of the HTTP service, checked at once, families included: the first bad one throws an
 * EnvironmentError naming it, before anything starts.
 */
export function readEnvironment(env: Environment): EnvironmentValues {
  const values = Object.fromEntries(
    (Object.keys(VARIABLES) as VariableName[]).map((name) => [name, readVariable(env, name)]),
  ) as EnvironmentValues;
  if (values.TOKEN_SERVICE_SIGNER === "aws-kms" && values.TOKEN_SERVICE_AWS_KMS_REGION === undefined) {
    throw new EnvironmentError(
      "TOKEN_SERVICE_AWS_KMS_REGION is required with TOKEN_SERVICE_SIGNER=aws-kms",
      "TOKEN_SERVICE_AWS_KMS_REGION",
    );
  }
  if (values.TOKEN_SERVICE_BODY_TIMEOUT_SECONDS < values.TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS) {
    // Node refuses a server whose headers timeout exceeds its request timeout.
    const name = "TOKEN_SERVICE_BODY_TIMEOUT_SECONDS";
    const value = rawValue(env, name);
    throw new EnvironmentError(
      `${name} must be at least TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS (the headers are part of the request)${value === undefined ? "" : ` (got ${JSON.stringify(value)})`}`,
      name,
    );
  }
  // The endpoints of the chains TOKEN_SERVICE_CHAINS declares are checked with the built-in ones'.
  const chains = BUILT_IN_CHAINS.withDeclared(chainDefinitions(values.TOKEN_SERVICE_CHAINS, "TOKEN_SERVICE_CHAINS"));
  for (const family of Object.keys(FAMILIES) as FamilyName[]) {
    for (const name of FAMILIES[family].names(chains)) readFamilyVariable(env, family, name);
  }
  return values;
}
