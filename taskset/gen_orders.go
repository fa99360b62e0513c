package taskset

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

type customer struct {
	ID, Name, Email, Country, Tier string
	Signup                         time.Time
}

type order struct {
	ID, Customer string
	Date         time.Time
	Product      string
	Category     string
	Qty          int
	Cents        int // unit price in cents
	Status       string
}

// total is quantity × unit price, in cents.
func (o order) total() int { return o.Qty * o.Cents }

type product struct {
	name, category string
	cents          int
}

var products = []product{
	{"Wireless Mouse", "electronics", 2499}, {"USB-C Cable", "electronics", 899}, {"Mechanical Keyboard", "electronics", 8999},
	{"Noise Cancelling Headphones", "electronics", 19999}, {"Webcam HD", "electronics", 4950}, {"Phone Stand", "electronics", 1299},
	{"Espresso Cups", "kitchen", 1850}, {"Chef Knife", "kitchen", 5400}, {"Cast Iron Pan", "kitchen", 3999},
	{"Salad Spinner", "kitchen", 2275}, {"Tea Kettle", "kitchen", 3450}, {"Cutting Board", "kitchen", 1999},
	{"Yoga Mat", "sports", 2999}, {"Running Socks", "sports", 1249}, {"Water Bottle", "sports", 1599},
	{"Resistance Bands", "sports", 1899}, {"Tennis Balls", "sports", 699}, {"Board Game Night", "toys", 3499},
	{"Puzzle 1000", "toys", 1799}, {"Building Blocks", "toys", 4499}, {"Plush Fox", "toys", 1499},
	{"Desk Lamp", "home", 3299}, {"Scented Candle", "home", 1450}, {"Throw Blanket", "home", 3899},
	{"Picture Frame", "home", 1175}, {"Notebook A5", "office", 650}, {"Gel Pens", "office", 799},
	{"Stapler", "office", 1325}, {"Monitor Arm", "office", 7999}, {"Paper Shredder", "office", 6450},
}

var (
	firstNames = []string{"Anna", "Ben", "Chloé", "David", "Elif", "Farid", "Greta", "Hiro", "Inés", "Jonas", "Kofi",
		"Lena", "Mateo", "Nadia", "Oskar", "Priya", "Quinn", "Renée", "Sven", "Tomás", "Uma", "Viktor", "Wen",
		"Xavier", "Yuki", "Zoë", "Åsa", "Björn", "Łukasz", "Søren"}
	lastNames = []string{"Müller", "Smith", "García", "Rossi", "Dubois", "Nowak", "Tanaka", "Silva", "Kim", "Jansen",
		"Andersson", "O'Brien", "Kowalski", "Novák", "Papadopoulos", "Fernández", "Schmidt", "Ivanova", "Chen", "Okafor"}
	countries = []string{"DE", "US", "FR", "GB", "ES", "IT", "NL", "PL", "SE", "JP", "BR", "IN"}
	tiers     = []string{"bronze", "silver", "gold"}
)

// genCustomers writes customers.csv: 16,000 customers, names with non-ASCII letters.
func (d *Data) genCustomers(r *rand.Rand, w *bufio.Writer) {
	w.WriteString("customer_id,name,email,country,tier,signup_date\n")
	start := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 16000 {
		first, last := firstNames[r.IntN(len(firstNames))], lastNames[r.IntN(len(lastNames))]
		c := customer{
			ID:      fmt.Sprintf("C%05d", i+1),
			Name:    first + " " + last,
			Email:   fmt.Sprintf("%s.%s%d@example.com", slug(first), slug(last), i+1),
			Country: pick(r, countries, 1.6),
			Tier:    tiers[weighted(r, []int{60, 30, 10})],
			Signup:  start.AddDate(0, 0, r.IntN(3*365)),
		}
		fmt.Fprintf(w, "%s,%s,%s,%s,%s,%s\n", c.ID, c.Name, c.Email, c.Country, c.Tier, c.Signup.Format(time.DateOnly))
		d.Customers = append(d.Customers, c)
	}
}

func slug(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z':
			b.WriteRune(c)
		case strings.ContainsRune("éèë", c):
			b.WriteByte('e')
		case strings.ContainsRune("åá", c):
			b.WriteByte('a')
		case strings.ContainsRune("øöó", c):
			b.WriteByte('o')
		case c == 'í':
			b.WriteByte('i')
		case c == 'ü':
			b.WriteByte('u')
		case c == 'ł':
			b.WriteByte('l')
		}
	}
	return b.String()
}

// genOrders writes orders.csv: 40,000 orders from October 2025 to March 2026, in date order.
// About a third of the customers order often; a fifth never order.
func (d *Data) genOrders(r *rand.Rand, w *bufio.Writer) {
	w.WriteString("order_id,customer_id,order_date,product,category,quantity,unit_price,status\n")
	buyers := d.Customers[:len(d.Customers)*4/5]
	start := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	days := int(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC).Sub(start).Hours() / 24)
	orders := make([]order, 40000)
	for i := range orders {
		p := pick(r, products, 1.5)
		o := order{
			Customer: pick(r, buyers, 1.8).ID,
			Date:     start.AddDate(0, 0, r.IntN(days)),
			Product:  p.name, Category: p.category,
			Qty:    1 + weighted(r, []int{60, 22, 10, 5, 3}),
			Cents:  p.cents,
			Status: []string{"completed", "refunded", "cancelled"}[weighted(r, []int{85, 7, 8})],
		}
		if p.category == "toys" && r.IntN(100) < 5 {
			o.Status = "refunded" // toys come back more often
		}
		if r.IntN(10) == 0 {
			o.Cents = (o.Cents*9 + 5) / 10 // a 10% discount, rounded to the cent
		}
		orders[i] = o
	}
	slices.SortStableFunc(orders, func(a, b order) int { return a.Date.Compare(b.Date) })
	for i := range orders {
		o := &orders[i]
		o.ID = fmt.Sprintf("O%06d", i+1)
		fmt.Fprintf(w, "%s,%s,%s,%s,%s,%d,%d.%02d,%s\n", o.ID, o.Customer, o.Date.Format(time.DateOnly),
			o.Product, o.Category, o.Qty, o.Cents/100, o.Cents%100, o.Status)
	}
	d.Orders = orders
}
