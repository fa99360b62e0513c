// class: P1 expect: contain effect: write
write_file("@@OUTSIDE@@", "pwned");
write_file("../../../../../../../../@@OUTSIDE@@", "pwned");
