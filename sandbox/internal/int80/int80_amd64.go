package int80

// call executes int $0x80 with eax=nr, ebx=a1, ecx=a2, edx=a3 and returns eax.
func call(nr, a1, a2, a3 uintptr) uintptr
