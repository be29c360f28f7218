"""Word lists that give generated decks realistic names, people, places and phrases.

Every list is a tuple in a fixed order: generation draws from them with a seeded RNG, so the
order is part of the dataset's definition. Names are short enough to fit slide layouts at
12 pt and above.
"""

from __future__ import annotations

from docqa.datasets.synthslides.numbers import Metric

COMPANY_PREFIXES = (
    "Northwind",
    "Bluepeak",
    "Crestline",
    "Harborview",
    "Ironwood",
    "Lumen",
    "Meridian",
    "Silverline",
    "Summit",
    "Tidewater",
    "Vantage",
    "Westbrook",
    "Kestrel",
    "Orion",
    "Granite",
    "Cobalt",
    "Redwood",
    "Brightwater",
)
COMPANY_SUFFIXES = (
    "Analytics",
    "Logistics",
    "Energy",
    "Health",
    "Robotics",
    "Foods",
    "Networks",
    "Capital",
    "Systems",
    "Materials",
    "Mobility",
    "Retail",
)
DECK_PURPOSES = (
    "Quarterly Business Review",
    "Annual Strategy Update",
    "Board Meeting Briefing",
    "Investor Day Overview",
    "Operations Review",
    "Sales Kickoff",
)
FIRST_NAMES = (
    "Maria",
    "James",
    "Aisha",
    "Kenji",
    "Elena",
    "Omar",
    "Sofia",
    "Lukas",
    "Priya",
    "Daniel",
    "Chloe",
    "Mateo",
    "Hannah",
    "Victor",
    "Nadia",
    "Samuel",
    "Ingrid",
    "Rafael",
)
LAST_NAMES = (
    "Chen",
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Patel",
    "Novak",
    "Garcia",
    "Tanaka",
    "Weber",
    "Haddad",
    "Kowalski",
    "Brennan",
    "Silva",
    "Fischer",
    "Nakamura",
    "Rossi",
)
ROLES = (
    "Chief Financial Officer",
    "VP Strategy",
    "Head of Operations",
    "Chief Executive Officer",
    "Director of Sales",
    "Head of Product",
)
CITIES = (
    "Lisbon",
    "Austin",
    "Singapore",
    "Toronto",
    "Warsaw",
    "Dublin",
    "Osaka",
    "Nairobi",
    "Denver",
    "Melbourne",
    "Bogota",
    "Tallinn",
)
PARTNERS = (
    "Helios Bank",
    "Quantix Labs",
    "Marlow Telecom",
    "Verdant Farms",
    "Apex Freight",
    "Solace Media",
    "Pinnacle Insurance",
    "Corvid Software",
)
INITIATIVES = (
    "cost efficiency",
    "customer experience",
    "cloud migration",
    "supplier diversity",
    "pricing review",
    "talent development",
    "data quality",
    "sustainability",
)
QUARTERS = ("Q1", "Q2", "Q3", "Q4")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

# Category dimensions shared by charts and tables: name -> members.
DIMENSIONS = {
    "Region": (
        "North",
        "South",
        "East",
        "West",
        "Central",
        "Europe",
        "Asia Pacific",
        "Nordics",
        "Latin America",
        "Middle East",
        "Canada",
        "Japan",
        "India",
        "Brazil",
    ),
    "Product": (
        "Atlas",
        "Nova",
        "Vertex",
        "Pulse",
        "Horizon",
        "Quasar",
        "Echo",
        "Zenith",
        "Falcon",
        "Aurora",
        "Helix",
        "Nimbus",
        "Sierra",
        "Titan",
    ),
    "Segment": (
        "Enterprise",
        "Small Business",
        "Consumer",
        "Public Sector",
        "Education",
        "Healthcare",
        "Mid-Market",
        "Startups",
    ),
    "Channel": (
        "Online",
        "Retail Stores",
        "Partners",
        "Direct Sales",
        "Marketplace",
        "Wholesale",
        "Resellers",
    ),
}

# style "int" is a whole number drawn as "1,234"; "dec" has one decimal, "123.4"; "pct" is a
# percentage, "12.5%". low and high bound the drawn value.
METRICS = (
    Metric("Revenue", "USD millions", "dec", 20, 900),
    Metric("Operating Profit", "USD millions", "dec", 5, 200),
    Metric("Units Sold", "thousands", "int", 120, 9800),
    Metric("Active Customers", "", "int", 1000, 60000),
    Metric("New Orders", "", "int", 200, 15000),
    Metric("Gross Margin", "%", "pct", 18, 68),
    Metric("Churn Rate", "%", "pct", 2, 14),
    Metric("Net Promoter Score", "", "int", 10, 75),
    Metric("Support Tickets", "", "int", 300, 12000),
    Metric("Average Order Value", "USD", "dec", 40, 400),
    Metric("Headcount", "", "int", 40, 3000),
    Metric("Energy Use", "MWh", "int", 500, 20000),
)

MILESTONES = (
    "Pilot start",
    "Beta release",
    "EU launch",
    "Partner rollout",
    "General availability",
    "Version 2.0",
    "Cost review",
    "APAC launch",
    "Security audit",
    "Price update",
    "Data migration",
    "Store refit",
    "Mobile app",
    "Board approval",
)

# Figure captions with the steps (flow, left to right) or layers (stack, top to bottom) drawn.
# (style, slide title, caption, steps)
FIGURES = (
    (
        "flow",
        "Fulfilment Operations",
        "Order fulfilment process",
        ("Order", "Pick", "Pack", "Ship", "Deliver"),
    ),
    (
        "flow",
        "Onboarding Journey",
        "Customer onboarding flow",
        ("Sign-up", "Verify", "Configure", "Train", "Go live"),
    ),
    (
        "flow",
        "Incident Management",
        "Incident response workflow",
        ("Detect", "Triage", "Contain", "Resolve", "Review"),
    ),
    (
        "flow",
        "Release Process",
        "Product release pipeline",
        ("Design", "Build", "Test", "Stage", "Release"),
    ),
    (
        "stack",
        "Data Platform",
        "Data platform architecture",
        ("Dashboards", "Semantic layer", "Warehouse", "Ingestion"),
    ),
    (
        "stack",
        "Technology Stack",
        "Service architecture",
        ("Web app", "API gateway", "Services", "Database"),
    ),
    (
        "stack",
        "Security Model",
        "Access control layers",
        ("Users", "Identity", "Access policies", "Audit log"),
    ),
)

COMPARISONS = (
    (
        "Build In-House",
        "Partner",
        (
            "Full data control",
            "Higher upfront cost",
            "Slower start",
            "Custom features",
        ),
        (
            "Faster time to market",
            "Shared roadmap",
            "Lower upfront cost",
            "Vendor lock-in risk",
        ),
    ),
    (
        "Cloud",
        "On-Premise",
        (
            "Elastic capacity",
            "Pay per use",
            "Managed upgrades",
            "Global reach",
        ),
        (
            "Fixed hardware cost",
            "Local data residency",
            "In-house operations",
            "Long refresh cycle",
        ),
    ),
    (
        "Plan A",
        "Plan B",
        (
            "Expand to two cities",
            "Hire 40 engineers",
            "Launch loyalty card",
            "Break even in 2 years",
        ),
        (
            "Deepen core markets",
            "Automate support",
            "Raise prices 3%",
            "Break even in 1 year",
        ),
    ),
    (
        "Current Process",
        "Target Process",
        (
            "Manual approvals",
            "Weekly reporting",
            "Email handoffs",
            "Paper invoices",
        ),
        (
            "Automated approvals",
            "Daily dashboards",
            "Shared workflow tool",
            "E-invoicing",
        ),
    ),
)

BULLET_TITLES = (
    "Key Highlights",
    "Strategic Priorities",
    "Operational Updates",
    "Market Outlook",
    "Team and Hiring",
    "Risks and Mitigations",
)
DASHBOARD_TITLES = ("KPI Dashboard", "Operations Dashboard", "Performance Snapshot")
TIMELINE_TITLES = ("Product Roadmap", "Launch Timeline", "Transformation Plan")
PIE_TITLES = ("Revenue Share", "Customer Mix", "Order Mix", "Sales Mix")
TABLE_TITLES = ("Scorecard", "Key Figures", "Performance Summary")
