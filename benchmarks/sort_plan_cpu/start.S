# The firmware's entry: a stack at the top of the RAM, main, its result stored to DONE.
    .section .text.start
    .global _start
_start:
    li   sp, 0x40000
    call main
    li   t0, 0x10000000
    sw   a0, 0(t0)
1:  j    1b
