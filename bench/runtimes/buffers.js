// bench/runtimes/buffers.js N: N Buffer.allocUnsafeSlow(1000) in work(), each
// one malloc of node's, timed by the program itself. Prints "TIME seconds".
const n = Number(process.argv[2]);
const keep = new Array(n);

function work() {
  for (let i = 0; i < n; i++) keep[i] = Buffer.allocUnsafeSlow(1000);
}

const t = process.hrtime.bigint();
work();
console.log("TIME", Number(process.hrtime.bigint() - t) / 1e9);
setTimeout(() => {}, 300);
