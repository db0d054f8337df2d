import { describeWalkthrough } from "../../helpers/walkthrough-runner.js";

describeWalkthrough({
  file: "docs/tasks.md",
  mustInclude: ["wallet:create", "faucet", "token:launch", "token:mint", "balance", "--private-key-env DEPLOYER_KEY"],
});
