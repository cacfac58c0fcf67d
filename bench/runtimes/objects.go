// bench/runtimes/objects.go N [-memprofile]: N make([]byte, 64) in main.work,
// timed by the program itself; with -memprofile, Go's own heap profile at
// MemProfileRate=1 counts them too (the peer). Prints "TIME seconds" and
// "PEER objects".
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"
)

var keep [][]byte

func init() {
	if len(os.Args) > 2 && os.Args[2] == "-memprofile" {
		runtime.MemProfileRate = 1
	}
}

//go:noinline
func work(n int) {
	for i := 0; i < n; i++ {
		keep[i] = make([]byte, 64)
	}
}

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	keep = make([][]byte, n)
	t := time.Now()
	work(n)
	fmt.Println("TIME", time.Since(t).Seconds())
	if runtime.MemProfileRate == 1 {
		runtime.GC()
		c, _ := runtime.MemProfile(nil, true)
		records := make([]runtime.MemProfileRecord, c+64)
		c, _ = runtime.MemProfile(records, true)
		var objects int64
		for _, r := range records[:c] {
			frames := runtime.CallersFrames(r.Stack())
			for {
				f, more := frames.Next()
				if f.Function == "main.work" {
					objects += r.AllocObjects
					break
				}
				if !more {
					break
				}
			}
		}
		fmt.Println("PEER", objects)
	}
	time.Sleep(300 * time.Millisecond)
}
