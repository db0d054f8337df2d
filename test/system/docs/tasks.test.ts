import { describeWalkthrough } from "../../helpers/walkthrough-runner.js";

describeWalkthrough({
  file: "docs/tasks.md",
  mustInclude: [
    "wallet:create",
    "faucet",
    "token:launch",
    "token:mint",
    "token:approve",
    "balance",
    "token:burn",
    "token:pause",
    "token:grant-role",
    "--private-key-env DEPLOYER_KEY",
  ],
});
