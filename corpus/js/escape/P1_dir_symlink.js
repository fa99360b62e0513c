// class: P1 expect: contain effect: read
// A directory symlink inside the root that points at the canary's directory.
print(list_dir("@@DIRLINK@@").join(","));
print(read_file("@@DIRLINK@@/secret.txt"));
