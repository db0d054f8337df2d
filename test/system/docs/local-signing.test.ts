import { describeWalkthrough } from "../../helpers/walkthrough-runner.js";

describeWalkthrough({
  file: "docs/local-signing.md",
  mustInclude: ["npx hardhat serve", "apikey:create", "/api/v1/tokens", "signTransaction", "signedTransaction"],
});
