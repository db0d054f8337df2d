import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";

import { ContractFactory, type BaseContract, type ContractRunner, type InterfaceAbi } from "ethers";

/**
 * Test-only tokens the service did not launch (OpenZeppelin's ERC1155, a pausable ERC20, a non-enumerable ERC721),
 * compiled here with the solc npm package the project builds with, and deployable with any ethers signer. The compiled
 * output is kept in the temporary directory, keyed by the source and the compiler. The source is a string, not a .sol
 * file under test/: Hardhat would take such a file for a Solidity test and compile it into the project's artifacts.
 */

const require = createRequire(import.meta.url);
const SOURCE = "TestTokens.sol";
const CONTENT = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// Test-only tokens the service did not launch: OpenZeppelin's own
// ERC1155, a pausable ERC20, and an ERC721 that is not enumerable. Anyone may mint, pause and unpause them.

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Pausable} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Pausable.sol";
import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

contract TestERC1155 is ERC1155 {
    constructor() ERC1155("https://example.com/items/{id}.json") {}

    function mint(address to, uint256 id, uint256 value) external {
        _mint(to, id, value, "");
    }
}

contract TestPausableERC20 is ERC20Pausable {
    constructor(uint256 supply) ERC20("Pausable", "PSE") {
        _mint(msg.sender, supply);
    }

    function pause() external {
        _pause();
    }

    function unpause() external {
        _unpause();
    }
}

contract TestPlainERC721 is ERC721 {
    constructor() ERC721("Plain", "PLN") {}

    function mint(address to, uint256 tokenId) external {
        _mint(to, tokenId);
    }
}

/// Takes no tokens: a safe transfer to it reverts.
contract TestNoReceiver {}

/// Takes ERC-1155 tokens sent one id at a time: it answers onERC1155Received and has no onERC1155BatchReceived.
contract TestSingleHookReceiver {
    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155Received.selector;
    }
}

/// Takes ERC-1155 batches: it answers onERC1155BatchReceived and has no onERC1155Received.
contract TestBatchHookReceiver {
    function onERC1155BatchReceived(address, address, uint256[] calldata, uint256[] calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return this.onERC1155BatchReceived.selector;
    }
}
`;

/**
 * Contracts the EIP conformance suite (test/integration/conformance/) needs to watch a token from the outside, in a
 * source unit of their own: the metadata hash of the contracts above, and so their bytecode, stays what it was.
 */
const PROBES_SOURCE = "ConformanceProbes.sol";
const PROBES_CONTENT = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";

/// Answers every receiver hook (ERC-721, ERC-1155 single and batch) with a value that is not its magic value.
contract TestWrongAnswerReceiver {
    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return 0xdeadbeef;
    }

    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return 0xdeadbeef;
    }

    function onERC1155BatchReceived(address, address, uint256[] calldata, uint256[] calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return 0xdeadbeef;
    }
}

/// Takes every token and logs what each hook was given, with what it read from the token while the hook ran
/// (the owner of an ERC-721 id, its own ERC-1155 balances): the hook must come after the balances are updated.
contract TestRecordingReceiver {
    event Received721(address operator, address from, uint256 tokenId, bytes data, address ownerSeen);
    event Received1155(address operator, address from, uint256 id, uint256 value, bytes data, uint256 balanceSeen);
    event ReceivedBatch1155(address operator, address from, uint256[] ids, uint256[] values, bytes data, uint256[] balancesSeen);

    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data) external returns (bytes4) {
        emit Received721(operator, from, tokenId, data, IERC721(msg.sender).ownerOf(tokenId));
        return this.onERC721Received.selector;
    }

    function onERC1155Received(address operator, address from, uint256 id, uint256 value, bytes calldata data)
        external
        returns (bytes4)
    {
        emit Received1155(operator, from, id, value, data, IERC1155(msg.sender).balanceOf(address(this), id));
        return this.onERC1155Received.selector;
    }

    function onERC1155BatchReceived(
        address operator,
        address from,
        uint256[] calldata ids,
        uint256[] calldata values,
        bytes calldata data
    ) external returns (bytes4) {
        uint256[] memory seen = new uint256[](ids.length);
        for (uint256 i = 0; i < ids.length; ++i) seen[i] = IERC1155(msg.sender).balanceOf(address(this), ids[i]);
        emit ReceivedBatch1155(operator, from, ids, values, data, seen);
        return this.onERC1155BatchReceived.selector;
    }
}

/// ERC-165's own detection: supportsInterface(interfaceId) through a STATICCALL given 30,000 gas, as the EIP words it.
contract TestERC165Probe {
    function probe(address target, bytes4 interfaceId) external view returns (bool success, bool supported, uint256 gasUsed) {
        bytes memory call = abi.encodeWithSelector(0x01ffc9a7, interfaceId);
        uint256 before = gasleft();
        bytes memory answer;
        (success, answer) = target.staticcall{gas: 30000}(call);
        gasUsed = before - gasleft();
        supported = success && answer.length >= 32 && abi.decode(answer, (bool));
    }
}
`;

export type TestTokenName =
  | "TestERC1155"
  | "TestPausableERC20"
  | "TestPlainERC721"
  | "TestNoReceiver"
  | "TestSingleHookReceiver"
  | "TestBatchHookReceiver"
  | "TestWrongAnswerReceiver"
  | "TestRecordingReceiver"
  | "TestERC165Probe";

interface Artifact {
  abi: InterfaceAbi;
  bytecode: string;
}

let compiled: Record<TestTokenName, Artifact> | undefined;

function compile(): Record<TestTokenName, Artifact> {
  if (compiled !== undefined) return compiled;
  const solc = require("solc") as { version(): string; compile(input: string, options: { import(file: string): object }): string };
  const key = createHash("sha256").update(solc.version()).update(CONTENT).update(PROBES_CONTENT).digest("hex").slice(0, 16);
  const cache = path.join(tmpdir(), `hts-test-tokens-${key}.json`);
  if (existsSync(cache)) return (compiled = JSON.parse(readFileSync(cache, "utf8")));
  const input = {
    language: "Solidity",
    sources: { [SOURCE]: { content: CONTENT }, [PROBES_SOURCE]: { content: PROBES_CONTENT } },
    settings: {
      evmVersion: "shanghai",
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  };
  const output = JSON.parse(
    solc.compile(JSON.stringify(input), {
      import: (file) => {
        try {
          return { contents: readFileSync(require.resolve(file), "utf8") };
        } catch {
          return { error: `not found: ${file}` };
        }
      },
    }),
  ) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: InterfaceAbi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((error) => error.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join("\n"));
  const contracts = { ...output.contracts[SOURCE]!, ...output.contracts[PROBES_SOURCE]! };
  const artifacts = Object.fromEntries(
    Object.entries(contracts).map(([name, contract]) => [name, { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` }]),
  ) as Record<TestTokenName, Artifact>;
  // Written aside and renamed: another test process reading the cache never sees half of it.
  writeFileSync(`${cache}.${process.pid}`, JSON.stringify(artifacts));
  renameSync(`${cache}.${process.pid}`, cache);
  return (compiled = artifacts);
}

/** Deploys a test token with `deployer` and waits for it; the contract, connected to the deployer. */
export async function deployTestToken(
  name: TestTokenName,
  deployer: ContractRunner,
  ...args: unknown[]
): Promise<BaseContract & Record<string, any>> {
  const { abi, bytecode } = compile()[name];
  const contract = await new ContractFactory(abi, bytecode, deployer).deploy(...args);
  await contract.waitForDeployment();
  return contract as BaseContract & Record<string, any>;
}
