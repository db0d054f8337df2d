import { describeWalkthrough } from "../../helpers/walkthrough-runner.js";

// docs/tokens.md's "Upgrading a token", run as a reader runs it: the service in a first terminal, the upgrade over HTTP.
describeWalkthrough({
  file: "docs/tokens.md",
  section: "Upgrading a token",
  mustInclude: ["npx hardhat serve", "/api/v1/tokens/upgrade", '"upgradeable":"uups"', '"pausable":true'],
});
