// cgo_stacks: C's malloc called from Go through cgo, from the main
// goroutine and from another. The C code runs on the thread's own stack,
// switched to by the runtime's asmcgocall, which has no CFI; the Go frames
// above it are on the goroutine's stack, by their frame pointers. Each
// stack must run whole, from the C function to runtime.goexit, not be cut
// at the switch.
//
// Ledger (exact, checked by tests/integration.sh):
//
//	main.grow -> site_cgo     3000 x malloc(100), kept
//	main.main.func1 -> site_cgo  500 x malloc(64), kept; 500 x malloc(32), freed
package main

/*
#include <stdlib.h>

static void *volatile sink;

__attribute__((noinline)) static void *site_cgo(size_t n)
{
	sink = malloc(n);	// not a tail call: this frame stays
	return sink;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

var keep []unsafe.Pointer

//go:noinline
func grow() {
	keep = append(keep, C.site_cgo(100))
}

func main() {
	for i := 0; i < 3000; i++ {
		grow()
	}
	done := make(chan []unsafe.Pointer)
	go func() {
		var mine []unsafe.Pointer
		for i := 0; i < 500; i++ {
			mine = append(mine, C.site_cgo(64))
			p := C.site_cgo(32)
			C.free(p)
		}
		done <- mine
	}()
	kept := <-done
	fmt.Println(len(keep), len(kept))
}
