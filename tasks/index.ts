import { walletCreateTask } from "./wallet-create.js";
import { balanceTask } from "./balance.js";
import { faucetTask } from "./faucet.js";
import { tokenLaunchTask } from "./token-launch.js";
import { tokenMintTask } from "./token-mint.js";
import { tokenTransferTask } from "./token-transfer.js";
import { tokenApproveTask } from "./token-approve.js";
import { tokenBurnTask } from "./token-burn.js";
import { tokenPauseTask } from "./token-pause.js";
import { tokenCallTasks } from "./token-calls.js";
import { tokenCancelTask, tokenSpeedUpTask } from "./token-replace.js";
import { tokenVerifyTask } from "./token-verify.js";
import { tokenUpgradeTask } from "./token-upgrade.js";
import { serveTask } from "./serve.js";
import { apikeyCreateTask } from "./apikey-create.js";
import { chainFaultTask } from "./chain-fault.js";
import { cliTask } from "./options.js";
import { custodyBackupTask, custodyInitTask, custodyPassphraseTask, custodyRestoreTask } from "./custody.js";

/** Every task the plugin declares; each action loads only when its task runs (cliTask: see tasks/options.ts). */
export const tokenServiceTasks = [
  walletCreateTask,
  balanceTask,
  faucetTask,
  tokenLaunchTask,
  tokenMintTask,
  tokenTransferTask,
  tokenApproveTask,
  tokenBurnTask,
  tokenPauseTask,
  // Every write kind of src/domain/kinds/, each made from its description.
  ...tokenCallTasks,
  tokenUpgradeTask,
  tokenSpeedUpTask,
  tokenCancelTask,
  tokenVerifyTask,
  serveTask,
  apikeyCreateTask,
  chainFaultTask,
  custodyInitTask,
  custodyBackupTask,
  custodyRestoreTask,
  custodyPassphraseTask,
].map(cliTask);
