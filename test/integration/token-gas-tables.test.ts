import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

import { expect } from "chai";
import hre from "hardhat";

import {
  batchMintGasRows,
  formatBatchMintGasTable,
  formatOptionCostTable,
  formatTokenGasTable,
  tokenGasRows,
} from "../../bench/token-gas.js";

/** A file of the project, wherever the tests run from. */
const projectFile = (name: string) => readFile(fileURLToPath(new URL(`../../${name}`, import.meta.url)), "utf8");

/** The markdown table of `page` that begins with `header`, up to the first line that is not a table row. */
function tableIn(page: string, header: string): string {
  const lines = page.split("\n");
  const start = lines.indexOf(header);
  if (start === -1) return "";
  const end = lines.findIndex((line, index) => index > start && !line.startsWith("|"));
  return lines.slice(start, end === -1 ? undefined : end).join("\n");
}

// Gas depends on the bytecode and the calldata (token fields, the owner's and holders' addresses: the bench fixes them
// all), not on the machine: the tables docs/tokens.md and the README show must be what launching each option and
// minting in batches give now, or a change to the templates left them stale.
describe("gas per token option and per batch mint: the tables in the docs are what launching and minting give now", function () {
  this.timeout(300_000);
  let rows: Awaited<ReturnType<typeof tokenGasRows>>;

  before(async function () {
    rows = await tokenGasRows(hre, () => {});
  });

  it("docs/tokens.md holds the full table, row for row", async function () {
    const table = formatTokenGasTable(rows);
    expect(tableIn(await projectFile("docs/tokens.md"), table.split("\n")[0]!)).to.equal(table);
  });

  it("the README holds what each option adds, per kind", async function () {
    const table = formatOptionCostTable(rows);
    expect(tableIn(await projectFile("README.md"), table.split("\n")[0]!)).to.equal(table);
  });

  it("docs/tokens.md holds the gas of batch mints, row for row", async function () {
    const table = formatBatchMintGasTable(await batchMintGasRows(hre, () => {}));
    expect(tableIn(await projectFile("docs/tokens.md"), table.split("\n")[0]!)).to.equal(table);
  });
});
