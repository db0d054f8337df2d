// Copies the ABI and bytecode of the token contracts from Hardhat's artifacts into src/artifacts,
// which ship with the package so that projects using the plugin never compile our contracts.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
for (const name of ["ServiceERC20", "ServiceERC721", "BalanceReader"]) {
  const artifact = JSON.parse(await readFile(path.join(root, "artifacts/contracts", `${name}.sol`, `${name}.json`), "utf8"));
  const shipped = { contractName: artifact.contractName, abi: artifact.abi, bytecode: artifact.bytecode };
  await writeFile(path.join(root, "src/artifacts", `${name}.json`), `${JSON.stringify(shipped, null, 2)}\n`);
}
