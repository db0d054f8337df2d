import { id } from "ethers";

/**
 * Which functions a contract's code dispatches to, read from the code itself. Solidity's dispatcher compares the
 * calldata's first four bytes with every external function's selector, each pushed as an immediate (PUSH4, or a shorter
 * push when the selector starts with zero bytes); walking the code opcode by opcode, as the EVM does, collects those
 * immediates without mistaking other pushes' data for opcodes. The token variants differ in which forms of mint they
 * have (docs/tokens.md), and a launch by an older release lacks the batch mint: the code says which a token has, for
 * tokens the service did not launch as well. A proxy's code holds its implementation's selectors nowhere: it has none.
 */
export class CodeFunctions {
  private readonly pushed = new Set<number>();

  constructor(code: string) {
    const bytes = Buffer.from(code.startsWith("0x") ? code.slice(2) : code, "hex");
    const PUSH1 = 0x60;
    const PUSH4 = 0x63;
    const PUSH32 = 0x7f;
    for (let at = 0; at < bytes.length; at++) {
      const opcode = bytes[at]!;
      if (opcode < PUSH1 || opcode > PUSH32) continue;
      const size = opcode - PUSH1 + 1;
      if (opcode <= PUSH4 && at + size < bytes.length) this.pushed.add(bytes.readUIntBE(at + 1, size));
      at += size;
    }
  }

  /** Whether the code dispatches to the function of this signature, e.g. `mintWithId(address,uint256)`. */
  has(signature: string): boolean {
    return this.pushed.has(Number.parseInt(id(signature).slice(2, 10), 16));
  }
}
