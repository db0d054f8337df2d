import { describeWalkthrough } from "../../helpers/walkthrough-runner.js";

describeWalkthrough({
  file: "docs/faults.md",
  section: "Walk-through",
  mustInclude: [
    "TOKEN_SERVICE_CHAIN_FAULTS=on npx hardhat serve",
    '"fault":"fee-spike"',
    '"fault":"stall"',
    '"fault":"drop"',
    '"fault":"reorg"',
    '"fault":"rpc-errors"',
    "npx hardhat chain:fault",
  ],
});
