// want: 2026-11-01T10:00:00.000Z 0 1793527200000 3600
const d = new Date(Date.UTC(2026, 10, 1, 10, 0, 0));
const later = Date.parse("2026-11-01T11:00:00Z");
print(d.toISOString(), d.getUTCDay(), d.getTime(), (later - d.getTime()) / 1000);
