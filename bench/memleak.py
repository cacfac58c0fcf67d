#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
Runs Debian 12's memleak-bpfcc (BCC 0.26) as it is, with two changes around it:

- Its Python binding declares bpf_attach_uprobe() with six arguments, but
  libbcc's C function takes a seventh, ref_ctr_offset. Called with six, the
  seventh is whatever is left in a register (6 here), so every uprobe asks the
  kernel for a reference counter at offset 6 of libc. The kernel then refuses
  it (EINVAL, "ref_ctr_offset mismatch" in dmesg) whenever any other tracer
  already probes the same function, and refuses the other tracer's probes
  while memleak holds its own. Passing 0, as the C API intends, fixes that.
- It prints "memleak: attached" once its last probe is attached (memleak
  itself only says "Attaching to pid", before it attaches anything).

Usage: memleak.py MEMLEAK_ARGS...   (runs /usr/sbin/memleak-bpfcc)
"""
import ctypes as ct
import runpy
import signal
import sys

from bcc import BPF, libbcc

MEMLEAK = "/usr/sbin/memleak-bpfcc"

_attach = libbcc.lib.bpf_attach_uprobe
_attach.argtypes = [ct.c_int, ct.c_int, ct.c_char_p, ct.c_char_p, ct.c_ulonglong, ct.c_int,
                    ct.c_uint32]
_attach.restype = ct.c_int


def _attach_uprobe(progfd, attach_type, ev_name, path, offset, pid, ref_ctr_offset=0):
    return _attach(progfd, attach_type, ev_name, path, offset, pid, ref_ctr_offset)


# bcc/__init__.py calls lib.bpf_attach_uprobe(...): an attribute of the CDLL object
libbcc.lib.bpf_attach_uprobe = _attach_uprobe

_bpf_attach_uprobe = BPF.attach_uprobe


def _announce(self, *args, **kwargs):
    result = _bpf_attach_uprobe(self, *args, **kwargs)
    # memleak attaches free, then munmap, after all the allocators: munmap is last
    if kwargs.get("sym") in ("munmap", b"munmap"):
        print("memleak: attached", flush=True)
    return result


BPF.attach_uprobe = _announce

# started in the background by a script, SIGINT is ignored: make it stop memleak
signal.signal(signal.SIGINT, signal.default_int_handler)

sys.argv = [MEMLEAK] + sys.argv[1:]
runpy.run_path(MEMLEAK, run_name="__main__")
