// class: P1 expect: contain effect: read
print(read_file("@@CANARY@@"));
