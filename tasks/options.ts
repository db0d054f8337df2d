import type { task } from "hardhat/config";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";
import { ArgumentType } from "hardhat/types/arguments";
import type { NewTaskActionFunction, NewTaskDefinition, TaskArguments } from "hardhat/types/tasks";

import { BUILT_IN_CHAINS, CHAIN_NAMES } from "../src/domain/chains.js";

/** Every built-in network name, once (sepolia is ethereum's, base's, arbitrum's and optimism's). */
const NETWORK_NAMES = [...new Set(CHAIN_NAMES.flatMap((chain) => BUILT_IN_CHAINS.networkNames(chain)))];

/** `name` + NUL + a word a `text` option's help shows as its default, standing for "not given". */
const UNGIVEN = new Set<string>();

/**
 * A text option that may be left out. Hardhat's help names an option's type in its usage line, and
 * STRING_WITHOUT_DEFAULT reads `<STRING_WITHOUT_DEFAULT>` there; a STRING needs a default, which the help prints as
 * "(default: …)". So the default is the word that says what leaving the option out means ("none", "the sender", "10"),
 * and the task's action is handed `undefined` for it (see cliTask): the action still tells "not given" from a value.
 */
export function text(name: string, description: string, whenNotGiven = "none") {
  UNGIVEN.add(`${name}\u0000${whenNotGiven}`);
  return { name, description, type: ArgumentType.STRING, defaultValue: whenNotGiven };
}

// `never`: each action declares its own arguments, which Hardhat has checked against the options by now.
type Action = (args: never, hre: HardhatRuntimeEnvironment) => Promise<unknown>;
type Loader = () => Promise<{ default: NewTaskActionFunction }>;

/** Per task (by its lazy action): its `text` options and the word each shows for "not given". */
const WORDS = new WeakMap<Loader, Map<string, string>>();

/**
 * A task's lazy action, run with its `text` options' "not given" words back to undefined and the plugin's refusals
 * returned as a failed Result (printed without Hardhat's --show-stack-traces footer: see refusalResult).
 */
export function cliAction(load: () => Promise<{ default: Action }>): Loader {
  const loader: Loader = async () => {
    const [{ default: action }, { refusalResult }] = await Promise.all([load(), import("../src/hardhat/tasks/support/plugin-error.js")]);
    const words = WORDS.get(loader);
    // Every task goes through cliTask (tasks/index.ts); without it, "none" would reach the action as a value.
    if (words === undefined) throw new Error("a task's cliAction was not registered with cliTask");
    return {
      default: async (args: TaskArguments, hre: HardhatRuntimeEnvironment) => {
        const given = Object.fromEntries(
          Object.entries(args).map(([name, value]) => [name, words.get(name) === value ? undefined : value]),
        );
        try {
          return await action(given as never, hre);
        } catch (error) {
          const refused = refusalResult(error);
          if (refused) return refused;
          throw error;
        }
      },
    };
  };
  return loader;
}

/**
 * Links a built task to its cliAction: which of its options are `text` ones left at their default word. Per task, as
 * a word may be one task's "not given" and another's value (`--type erc20` is token:approve's default, not launch's).
 */
export function cliTask<T extends NewTaskDefinition>(definition: T): T {
  const words = new Map<string, string>();
  for (const [name, option] of Object.entries(definition.options)) {
    if (typeof option.defaultValue === "string" && UNGIVEN.has(`${name}\u0000${option.defaultValue}`)) {
      words.set(name, option.defaultValue);
    }
  }
  if (definition.action !== undefined) WORDS.set(definition.action as unknown as Loader, words);
  return definition;
}

// Hardhat owns --network (which Hardhat network to connect to), so the token
// service's own network option is --chain-network. An HTTP --network makes its
// pair live and may stand for both options.
export const chainOptions = <T extends ReturnType<typeof task>>(builder: T) =>
  builder
    .addOption(text("chain", `${CHAIN_NAMES.join(", ")}, or a chain of tokenService.chains or TOKEN_SERVICE_CHAINS`, "the --network's"))
    .addOption(
      text(
        "chainNetwork",
        `The chain's network: ${NETWORK_NAMES.join(", ")}; testnet is each chain's test network (ethereum: sepolia, polygon: amoy, avalanche: fuji)`,
        "the --network's",
      ),
    );

export const signerOptions = <T extends ReturnType<typeof task>>(builder: T) =>
  builder
    .addOption(text("sender", "Address that signs and pays", "the key's address"))
    .addOption(text("privateKeyEnv", "Name of the environment variable holding the sender's private key", "the --network's accounts"))
    .addOption(text("from", "A held wallet's address: the service signs with the key it holds (docs/custody.md); no key is read"))
    .addFlag({ name: "noWait", description: "Return once the node accepted the transaction, without waiting for it to be mined" })
    // Declared only to refuse it with a pointer to --private-key-env, instead of Hardhat's bare "unknown option" (a
    // hidden option cannot be given on the command line at all). The value is never read or printed.
    .addOption(
      text("privateKey", "Not accepted (shell history would keep the key): put it in an environment variable and pass --private-key-env"),
    );

export const json = <T extends ReturnType<typeof task>>(builder: T) =>
  builder.addFlag({ name: "json", description: "Print one JSON object" });
