// want: 16 120 255 1,2,3
const bytes = new Uint8Array(16);
for (let i = 0; i < bytes.length; i++) bytes[i] = i;
const sum = bytes.reduce((s, b) => s + b, 0);
const clamped = new Uint8ClampedArray([300]);
const view = new DataView(new ArrayBuffer(4));
view.setUint8(0, 1);
print(bytes.length, sum, clamped[0], Array.from(new Int16Array([1, 2, 3])).join(","));
