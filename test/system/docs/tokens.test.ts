import { describeWalkthrough } from "../../helpers/walkthrough-runner.js";

describeWalkthrough({
  file: "docs/tokens.md",
  section: "Walk-through",
  mustInclude: ["--options burnable,permit,mintable,access=ownable", "--type erc1155", "--salt $SALT", "binance_smart_chain"],
});
