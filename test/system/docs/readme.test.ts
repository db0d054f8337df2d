import { describeWalkthrough } from "../../helpers/walkthrough-runner.js";

// The README's own short examples: a task, `serve`, an API key and one call over HTTP.
describeWalkthrough({
  file: "README.md",
  section: "Quick start",
  mustInclude: ["npx hardhat faucet", "--amount 1.5", "npx hardhat serve", "apikey:create", "/api/v1/wallets"],
});
