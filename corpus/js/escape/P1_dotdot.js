// class: P1 expect: contain effect: read
// Climb out of the allowed root with .. segments.
print(read_file("@@ROOT@@/../../../../../../../../@@CANARY@@"));
