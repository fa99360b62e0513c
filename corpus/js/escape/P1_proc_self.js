// class: P1 expect: contain effect: env
print(read_file("/proc/self/environ"));
print(read_file("/proc/self/root@@CANARY@@"));
