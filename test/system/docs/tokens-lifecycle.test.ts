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
    "/api/v1/tokens/burn",
    "/api/v1/tokens/pause",
    "/api/v1/tokens/roles/grant",
    "/api/v1/tokens/roles/revoke",
    "/api/v1/tokens/ownership/transfer",
  ],
});
