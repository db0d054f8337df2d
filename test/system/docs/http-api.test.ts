import { describeWalkthrough } from "../../helpers/walkthrough-runner.js";

describeWalkthrough({
  file: "docs/http-api.md",
  mustInclude: ["npx hardhat serve", "apikey:create", "/api/v1/tokens", "/tokens/mint", "/v1/wallets", "regtest", "network=testnet"],
  readsBitcoinTestnet: true,
});
