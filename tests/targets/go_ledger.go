// go_ledger: a pure Go program, built stripped (-ldflags='-s -w': no symbol
// table, no DWARF; only the runtime's own .gopclntab names its functions),
// whose heap allocations are known per function.
//
// Ledger (exact at runtime.mallocgc's size argument):
//
//	main.small  1000 x make([]byte, 100), kept
//	main.big       1 x make([]byte, 64 MiB), kept: the heap grows by mmap under it
//
// It prints "LEDGER function bytes count" for each, then waits 300 ms (its
// frames are named while it lives). With the argument -memprofile it profiles
// every allocation (runtime.MemProfileRate = 1) and prints what Go's own heap
// profile counted under each, "MEMPROFILE function objects": the peer
// tracelloc's calls are checked against.
package main

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == "-memprofile" {
		runtime.MemProfileRate = 1
	}
}

var keep = make([][]byte, 0, 2000)

//go:noinline
func small() {
	for i := 0; i < 1000; i++ {
		keep = append(keep, make([]byte, 100))
	}
}

//go:noinline
func big() {
	b := make([]byte, 64<<20)
	b[0] = 1
	keep = append(keep, b)
}

func main() {
	small()
	big()
	fmt.Println("LEDGER main.small", 100*1000, 1000)
	fmt.Println("LEDGER main.big", 64<<20, 1)
	if runtime.MemProfileRate == 1 {
		memprofile("main.small", "main.big")
	}
	time.Sleep(300 * time.Millisecond)
}

// the objects Go's heap profile counted in stacks through each function
func memprofile(fns ...string) {
	runtime.GC()
	n, _ := runtime.MemProfile(nil, true)
	records := make([]runtime.MemProfileRecord, n+64)
	n, _ = runtime.MemProfile(records, true)
	objects := map[string]int64{}
	for _, r := range records[:n] {
		frames := runtime.CallersFrames(r.Stack())
		for {
			f, more := frames.Next()
			for _, fn := range fns {
				if f.Function == fn {
					objects[fn] += r.AllocObjects
				}
			}
			if !more {
				break
			}
		}
	}
	for _, fn := range fns {
		fmt.Println("MEMPROFILE", fn, objects[fn])
	}
}
