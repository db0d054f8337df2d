import { describeWalkthrough } from "../../helpers/walkthrough-runner.js";

describeWalkthrough({
  file: "docs/tokens-lifecycle.md",
  mustInclude: [
    "npx hardhat serve",
    "/api/v1/transfers",
    "/api/v1/tokens/approve",
    "/api/v1/tokens/allowance",
    "/owners/",
    "signedTransaction",
  ],
});
