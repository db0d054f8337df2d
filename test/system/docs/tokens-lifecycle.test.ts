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
    '"type":"ERC1155","contractAddress":"\'"$ITEMS"',
    '"tokenIds":["2","3"]',
    '"recipients":[',
    '"contractAddress":"\'"$GLD"\'","recipients"',
    "/api/v1/tokens/burn",
    "/api/v1/tokens/pause",
    "/api/v1/tokens/roles/grant",
    "/api/v1/tokens/roles/revoke",
    "/api/v1/tokens/ownership/transfer",
    "/api/v1/tokens/delegate",
  ],
});
