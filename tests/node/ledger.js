// tests/node/ledger.js - a node program whose allocations are known per
// JavaScript function, for tests/integration/runtimes.sh: each
// Buffer.allocUnsafeSlow(n) is one malloc of n bytes (node's array buffer
// allocator), made under the function that asks for it. Prints
// "LEDGER function bytes count".
const keep = [];

function makeBuffers(n) {
  for (let i = 0; i < n; i++) keep.push(Buffer.allocUnsafeSlow(100000));
}

function handler() {
  makeBuffers(20);
}

for (let i = 0; i < 5; i++) handler();
console.log("LEDGER makeBuffers", 100000 * 100, 100);
// the perf map is read while the process lives
setTimeout(() => {}, 300);
