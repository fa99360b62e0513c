// class: J4 expect: reject effect: crash rule: host-access
process.kill(process.pid, "SIGKILL");
