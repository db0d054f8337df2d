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

describeWalkthrough({
  file: "docs/faults.md",
  section: "A stuck launch, end to end",
  mustInclude: [
    "TOKEN_SERVICE_CHAIN_FAULTS=on TOKEN_SERVICE_REPLACE_AFTER_BLOCKS_ETHEREUM_SEPOLIA=2 npx hardhat serve --block-time 1",
    '"fault":"stall"',
    '"fault":"fee-spike"',
    '"privateKey":"',
    "&waitSeconds=30",
    "$API/transactions/$FIRST",
    "/speed-up",
    "/cancel",
  ],
});
