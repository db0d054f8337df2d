import { task } from "hardhat/config";

import { chainOptions, cliAction, json, text } from "./options.js";

export const chainFaultTask = json(
  chainOptions(
    task(
      "chain:fault",
      "Make the simulated chain of a running `serve` misbehave (it must run with TOKEN_SERVICE_CHAIN_FAULTS=on): fee-spike, stall, drop, reorg, rpc-errors",
    ),
  ),
)
  .addOption(text("fault", "fee-spike, stall, drop, reorg or rpc-errors (none with --list or --clear)"))
  .addOption(text("multiplier", "fee-spike: the base fee times this"))
  .addOption(text("baseFeePerGas", "fee-spike: the base fee in wei, instead of --multiplier"))
  .addOption(text("blocks", "fee-spike, reorg: blocks; stall, drop: blocks not mined (on a chain with a block time)"))
  .addOption(text("seconds", "stall, drop, rpc-errors: how long"))
  .addOption(text("rate", "rpc-errors: the share of node calls that fail, 0 to 1"))
  .addOption(text("calls", "rpc-errors: for this many calls"))
  .addOption(text("errors", "rpc-errors: comma-separated, of 429, 503, timeout", "all"))
  .addFlag({ name: "list", description: "List the active faults" })
  .addFlag({ name: "clear", description: "End the active faults (or the one named with --id)" })
  .addOption(text("id", "With --clear: the fault to end"))
  .addOption(text("url", "The service's base URL", "the `serve` holding the data directory"))
  .addOption(text("dataDir", "The data directory whose `serve` to find", "tokenService.dataDir"))
  .addOption(text("apiKeyEnv", "Name of the environment variable holding an API key (not needed with `serve --no-auth`)"))
  .setAction(cliAction(() => import("../src/hardhat/tasks/chain-fault.js")))
  .build();
