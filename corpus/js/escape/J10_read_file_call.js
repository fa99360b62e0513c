// class: J10 expect: reject effect: read rule: underscore
print(_read_file("@@CANARY@@"));
