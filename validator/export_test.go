package validator

// Class is class, for tests: the class of a policy rule in a language.
var Class = class
