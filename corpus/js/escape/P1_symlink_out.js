// class: P1 expect: contain effect: read
// A symlink inside the root that points at the canary.
print(read_file("@@LINK@@"));
