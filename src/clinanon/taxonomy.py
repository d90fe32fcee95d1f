"""The canonical PHI taxonomy and the label schemes that map native corpus labels onto it.

The canonical taxonomy is the i2b2-2014 two-level scheme (``TYPE.SUBTYPE``), extended with ``SEX`` and
``OTHER`` (annotated by MEDDOCAN and NUBES-PHI) and with ``NAME.RELATIVE``. A category is written
``"NAME.PATIENT"``; its parent type is the part before the dot (``"NAME"``). Detectors that cannot tell the
subtype emit the bare type (``"NAME"``, ``"ID"``).

A :class:`LabelScheme` maps each native label of a corpus (``NOMBRE_SUJETO_ASISTENCIA``, ``PATIENT``,
``First_Name``...) to one canonical category. Corpora keep their native labels (so scores stay comparable with
published ones); operators choose what to do by canonical category.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from clinanon.errors import ConfigError

__all__ = [
    "CANONICAL_CATEGORIES",
    "HIPAA_IDENTIFIERS",
    "LabelScheme",
    "category_matches",
    "get_scheme",
    "list_schemes",
    "parent",
    "register_scheme",
]

# type -> subtypes (i2b2-2014, + NAME.RELATIVE, + SEX, + OTHER)
_TREE: dict[str, tuple[str, ...]] = {
    "NAME": ("PATIENT", "DOCTOR", "USERNAME", "RELATIVE"),
    "PROFESSION": (),
    "LOCATION": ("ROOM", "DEPARTMENT", "HOSPITAL", "ORGANIZATION", "STREET", "CITY", "STATE", "COUNTRY",
                 "ZIP", "OTHER"),
    "AGE": (),
    "DATE": (),
    "CONTACT": ("PHONE", "FAX", "EMAIL", "URL", "IPADDR"),
    "ID": ("SSN", "MEDICALRECORD", "HEALTHPLAN", "ACCOUNT", "LICENSE", "VEHICLE", "DEVICE", "BIOID", "IDNUM"),
    "SEX": (),
    "OTHER": (),
}

#: Every canonical category: the types and every ``TYPE.SUBTYPE``.
CANONICAL_CATEGORIES: tuple[str, ...] = tuple(
    c for t, subs in _TREE.items() for c in (t, *(f"{t}.{s}" for s in subs))
)
_CANONICAL = frozenset(CANONICAL_CATEGORIES)


def parent(category: str) -> str:
    """``"NAME.PATIENT"`` -> ``"NAME"``; a type is its own parent."""
    return category.split(".", 1)[0]


def category_matches(category: str, selector: str) -> bool:
    """True when ``selector`` (a type or a ``TYPE.SUBTYPE``) covers ``category``."""
    return category == selector or parent(category) == selector


def check_category(category: str) -> str:
    if category not in _CANONICAL:
        raise ConfigError(
            f"unknown canonical category {category!r}; expected one of: {', '.join(CANONICAL_CATEGORIES)}"
        )
    return category


@dataclass(frozen=True)
class LabelScheme:
    """A named set of native labels, each mapped to a canonical category."""

    name: str
    description: str
    labels: Mapping[str, str]
    descriptions: Mapping[str, str] = field(default_factory=dict)
    #: for a canonical category, the native label to emit (default: the first native label mapped to it,
    #: else the first mapped to its parent type)
    preferred: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for native, cat in self.labels.items():
            if not native:
                raise ConfigError(f"label scheme {self.name!r}: empty native label")
            check_category(cat)
        object.__setattr__(self, "labels", MappingProxyType(dict(self.labels)))
        object.__setattr__(self, "descriptions", MappingProxyType(dict(self.descriptions)))
        object.__setattr__(self, "preferred", MappingProxyType(dict(self.preferred)))

    def __contains__(self, label: object) -> bool:
        return label in self.labels

    def category(self, label: str) -> str:
        """The canonical category of a native label (a canonical category passes through unchanged)."""
        try:
            return self.labels[label]
        except KeyError:
            if label in _CANONICAL:
                return label
            raise KeyError(f"label {label!r} is not in scheme {self.name!r}") from None

    def native(self, category: str) -> str | None:
        """The native label to use for a canonical category, or ``None`` when the scheme has none."""
        if category in self.labels:  # already native
            return category
        top = parent(category)
        for target in (category, top):
            if target in self.preferred:
                return self.preferred[target]
            for native, cat in self.labels.items():
                if cat == target:
                    return native
        for native, cat in self.labels.items():  # a subtype of a bare type: NAME -> first NAME.*
            if parent(cat) == category:
                return native
        return None


_REGISTRY: dict[str, LabelScheme] = {}


def register_scheme(scheme: LabelScheme, *, overwrite: bool = False) -> LabelScheme:
    key = scheme.name.lower()
    if key in _REGISTRY and not overwrite:
        raise ConfigError(f"a label scheme named {scheme.name!r} is already registered")
    _REGISTRY[key] = scheme
    return scheme


def get_scheme(name: str) -> LabelScheme:
    try:
        return _REGISTRY[name.lower()]
    except KeyError:
        raise ConfigError(f"unknown label scheme {name!r}; known: {', '.join(list_schemes())}") from None


def list_schemes() -> list[str]:
    return [s.name for s in _REGISTRY.values()]


def _scheme(name: str, description: str, rows: Iterable[tuple[str, str, str]],
            preferred: Mapping[str, str] | None = None) -> LabelScheme:
    rows = list(rows)
    return register_scheme(LabelScheme(
        name, description, {n: c for n, c, _ in rows}, {n: d for n, _, d in rows}, preferred or {}))


# --- canonical -------------------------------------------------------------------------------------------
_scheme("canonical", "clinanon's canonical taxonomy: i2b2-2014 type.subtype, plus NAME.RELATIVE, SEX, OTHER",
        [(c, c, "") for c in CANONICAL_CATEGORIES])

# --- i2b2 2014 ---------------------------------------------------------------------------------------------
# Native labels are the subtypes, as the i2b2-2014 XML TYPE attribute holds them (the tag name is the type).
_scheme("i2b2-2014", "i2b2/UTHealth 2014 de-identification track (tag = type, TYPE attribute = subtype)", [
    ("PATIENT", "NAME.PATIENT", "patient name"),
    ("DOCTOR", "NAME.DOCTOR", "clinician name"),
    ("USERNAME", "NAME.USERNAME", "user name / login"),
    ("PROFESSION", "PROFESSION", "profession"),
    ("ROOM", "LOCATION.ROOM", "room number"),
    ("DEPARTMENT", "LOCATION.DEPARTMENT", "department"),
    ("HOSPITAL", "LOCATION.HOSPITAL", "hospital"),
    ("ORGANIZATION", "LOCATION.ORGANIZATION", "organization"),
    ("STREET", "LOCATION.STREET", "street address"),
    ("CITY", "LOCATION.CITY", "city"),
    ("STATE", "LOCATION.STATE", "state / province"),
    ("COUNTRY", "LOCATION.COUNTRY", "country"),
    ("ZIP", "LOCATION.ZIP", "postal code"),
    ("OTHER", "LOCATION.OTHER", "other location (LOCATION TYPE=\"OTHER\")"),
    ("AGE", "AGE", "age"),
    ("DATE", "DATE", "date or time"),
    ("PHONE", "CONTACT.PHONE", "phone number"),
    ("FAX", "CONTACT.FAX", "fax number"),
    ("EMAIL", "CONTACT.EMAIL", "e-mail address"),
    ("URL", "CONTACT.URL", "URL"),
    ("IPADDR", "CONTACT.IPADDR", "IP address"),
    ("SSN", "ID.SSN", "social security number"),
    ("MEDICALRECORD", "ID.MEDICALRECORD", "medical record number"),
    ("HEALTHPLAN", "ID.HEALTHPLAN", "health plan number"),
    ("ACCOUNT", "ID.ACCOUNT", "account number"),
    ("LICENSE", "ID.LICENSE", "licence number"),
    ("VEHICLE", "ID.VEHICLE", "vehicle id"),
    ("DEVICE", "ID.DEVICE", "device id"),
    ("BIOID", "ID.BIOID", "biometric id"),
    ("IDNUM", "ID.IDNUM", "other id number"),
])

# --- MEDDOCAN ------------------------------------------------------------------------------------------------
# All 29 labels of the MEDDOCAN annotation guidelines (Marimon et al. 2019), not only those in the data.
_scheme("meddocan", "MEDDOCAN 2019 (Spanish clinical case reports), all labels of its annotation guidelines", [
    ("NOMBRE_SUJETO_ASISTENCIA", "NAME.PATIENT", "patient name"),
    ("NOMBRE_PERSONAL_SANITARIO", "NAME.DOCTOR", "health professional name"),
    ("FAMILIARES_SUJETO_ASISTENCIA", "NAME.RELATIVE", "relatives of the patient"),
    ("EDAD_SUJETO_ASISTENCIA", "AGE", "patient age"),
    ("SEXO_SUJETO_ASISTENCIA", "SEX", "patient sex"),
    ("FECHAS", "DATE", "dates"),
    ("CALLE", "LOCATION.STREET", "street address"),
    ("TERRITORIO", "LOCATION.CITY", "city, province, postcode, region"),
    ("PAIS", "LOCATION.COUNTRY", "country"),
    ("HOSPITAL", "LOCATION.HOSPITAL", "hospital"),
    ("CENTRO_SALUD", "LOCATION.DEPARTMENT", "health centre"),
    ("INSTITUCION", "LOCATION.ORGANIZATION", "institution"),
    ("NUMERO_TELEFONO", "CONTACT.PHONE", "phone number"),
    ("NUMERO_FAX", "CONTACT.FAX", "fax number"),
    ("CORREO_ELECTRONICO", "CONTACT.EMAIL", "e-mail address"),
    ("URL_WEB", "CONTACT.URL", "web URL"),
    ("DIREC_PROT_INTERNET", "CONTACT.IPADDR", "internet protocol address"),
    ("ID_SUJETO_ASISTENCIA", "ID.MEDICALRECORD", "patient record number (NHC)"),
    ("ID_CONTACTO_ASISTENCIAL", "ID.ACCOUNT", "episode / encounter id"),
    ("ID_ASEGURAMIENTO", "ID.HEALTHPLAN", "insurance number (NASS)"),
    ("NUMERO_BENEF_PLAN_SALUD", "ID.HEALTHPLAN", "health plan beneficiary number"),
    ("ID_TITULACION_PERSONAL_SANITARIO", "ID.LICENSE", "professional licence number (Nº Col.)"),
    ("ID_EMPLEO_PERSONAL_SANITARIO", "ID.IDNUM", "employment id of a health professional"),
    ("IDENTIF_VEHICULOS_NRSERIE_PLACAS", "ID.VEHICLE", "vehicle identifiers and plates"),
    ("IDENTIF_DISPOSITIVOS_NRSERIE", "ID.DEVICE", "device serial numbers"),
    ("IDENTIF_BIOMETRICOS", "ID.BIOID", "biometric identifiers"),
    ("NUMERO_IDENTIF", "ID.IDNUM", "other identification number"),
    ("PROFESION", "PROFESSION", "profession"),
    ("OTROS_SUJETO_ASISTENCIA", "OTHER", "other information that identifies the patient"),
], preferred={"LOCATION": "TERRITORIO", "LOCATION.ZIP": "TERRITORIO", "LOCATION.STATE": "TERRITORIO",
              "LOCATION.OTHER": "TERRITORIO", "NAME": "NOMBRE_SUJETO_ASISTENCIA",
              "ID": "NUMERO_IDENTIF", "ID.SSN": "ID_ASEGURAMIENTO", "CONTACT": "NUMERO_TELEFONO"})

# --- HIPAA Safe Harbor ---------------------------------------------------------------------------------------
_scheme("hipaa", "HIPAA Safe Harbor, the 18 identifiers of 45 CFR 164.514(b)(2)", [
    ("NAMES", "NAME", "(A) names"),
    ("GEOGRAPHIC", "LOCATION", "(B) geographic subdivisions smaller than a state"),
    ("DATES", "DATE", "(C) dates (except year) and ages over 89"),
    ("TELEPHONE", "CONTACT.PHONE", "(D) telephone numbers"),
    ("FAX", "CONTACT.FAX", "(E) fax numbers"),
    ("EMAIL", "CONTACT.EMAIL", "(F) e-mail addresses"),
    ("SSN", "ID.SSN", "(G) social security numbers"),
    ("MEDICAL_RECORD", "ID.MEDICALRECORD", "(H) medical record numbers"),
    ("HEALTH_PLAN", "ID.HEALTHPLAN", "(I) health plan beneficiary numbers"),
    ("ACCOUNT", "ID.ACCOUNT", "(J) account numbers"),
    ("LICENSE", "ID.LICENSE", "(K) certificate / licence numbers"),
    ("VEHICLE", "ID.VEHICLE", "(L) vehicle identifiers and serial numbers, licence plates"),
    ("DEVICE", "ID.DEVICE", "(M) device identifiers and serial numbers"),
    ("URL", "CONTACT.URL", "(N) web URLs"),
    ("IP", "CONTACT.IPADDR", "(O) IP addresses"),
    ("BIOMETRIC", "ID.BIOID", "(P) biometric identifiers"),
    ("PHOTO", "OTHER", "(Q) full-face photographs and comparable images"),
    ("OTHER_ID", "ID.IDNUM", "(R) any other unique identifying number, characteristic or code"),
], preferred={"AGE": "DATES", "LOCATION.COUNTRY": "GEOGRAPHIC", "SEX": "OTHER_ID", "PROFESSION": "OTHER_ID"})

# --- NUBES-PHI -------------------------------------------------------------------------------------------
_scheme("nubes-phi", "NUBes-PHI (Spanish clinical reports, Lima Lopez et al. 2020), 11 classes", [
    ("PERSON", "NAME", "person name"),
    ("DATE", "DATE", "date"),
    ("AGE", "AGE", "age"),
    ("SEX", "SEX", "sex"),
    ("LOCATION", "LOCATION", "location"),
    ("HOSPITAL", "LOCATION.HOSPITAL", "hospital"),
    ("ORGANIZATION", "LOCATION.ORGANIZATION", "organization"),
    ("PROFESSION", "PROFESSION", "profession"),
    ("RELATIVE", "NAME.RELATIVE", "relative of the patient"),
    ("IDENTIFIER", "ID", "identifier"),
    ("CONTACT", "CONTACT", "contact"),
])

# --- Stockholm EPR PHI corpus --------------------------------------------------------------------------------
_scheme("stockholm-epr", "Stockholm EPR PHI corpus (Swedish), 9 classes", [
    ("Age", "AGE", "age"),
    ("First_Name", "NAME", "first name"),
    ("Last_Name", "NAME", "last name"),
    ("Partial_Date", "DATE", "partial date"),
    ("Full_Date", "DATE", "full date"),
    ("Phone_Number", "CONTACT.PHONE", "phone number"),
    ("Health_Care_Unit", "LOCATION.DEPARTMENT", "health care unit"),
    ("Location", "LOCATION", "location"),
    ("Organization", "LOCATION.ORGANIZATION", "organization"),
], preferred={"LOCATION.HOSPITAL": "Health_Care_Unit", "DATE": "Full_Date"})

# --- TAB (Text Anonymization Benchmark) ---------------------------------------------------------------------
_scheme("tab", "Text Anonymization Benchmark (ECHR court cases), 8 entity types", [
    ("PERSON", "NAME", "names of people"),
    ("CODE", "ID", "numbers and codes"),
    ("LOC", "LOCATION", "places"),
    ("ORG", "LOCATION.ORGANIZATION", "organisations"),
    ("DEM", "OTHER", "demographic attributes"),
    ("DATETIME", "DATE", "dates and times"),
    ("QUANTITY", "OTHER", "quantities"),
    ("MISC", "OTHER", "other identifying information"),
], preferred={"AGE": "DEM", "SEX": "DEM", "PROFESSION": "DEM", "CONTACT": "CODE"})

# --- spaCy / OntoNotes --------------------------------------------------------------------------------------
_scheme("ontonotes", "spaCy / OntoNotes 5 entity types (only those that can be identifying are PHI)", [
    ("PERSON", "NAME", "people"),
    ("NORP", "OTHER", "nationalities, religious or political groups"),
    ("FAC", "LOCATION.OTHER", "buildings, airports, highways, bridges"),
    ("ORG", "LOCATION.ORGANIZATION", "companies, agencies, institutions"),
    ("GPE", "LOCATION.CITY", "countries, cities, states"),
    ("LOC", "LOCATION.OTHER", "non-GPE locations"),
    ("PRODUCT", "OTHER", "products"),
    ("EVENT", "OTHER", "named events"),
    ("WORK_OF_ART", "OTHER", "titles of works"),
    ("LAW", "OTHER", "named laws"),
    ("LANGUAGE", "OTHER", "named languages"),
    ("DATE", "DATE", "dates"),
    ("TIME", "DATE", "times"),
    ("PERCENT", "OTHER", "percentages"),
    ("MONEY", "OTHER", "monetary values"),
    ("QUANTITY", "OTHER", "measurements"),
    ("ORDINAL", "OTHER", "ordinals"),
    ("CARDINAL", "OTHER", "other numerals"),
    ("PER", "NAME", "people (spaCy WikiNER models)"),
    ("MISC", "OTHER", "miscellaneous (spaCy WikiNER models)"),
], preferred={"LOCATION": "GPE", "LOCATION.COUNTRY": "GPE", "LOCATION.HOSPITAL": "ORG",
              "LOCATION.DEPARTMENT": "ORG", "LOCATION.STREET": "FAC", "LOCATION.ROOM": "FAC", "AGE": "DATE",
              "ID": "CARDINAL"})

# --- Presidio -------------------------------------------------------------------------------------------------
_scheme("presidio", "Microsoft Presidio entity types (global and country-specific recognizers)", [
    ("PERSON", "NAME", "person"),
    ("LOCATION", "LOCATION", "location"),
    ("STREET_ADDRESS", "LOCATION.STREET", "street address (presidio-research)"),
    ("GPE", "LOCATION.CITY", "geo-political entity (presidio-research)"),
    ("ZIP_CODE", "LOCATION.ZIP", "postal code (presidio-research)"),
    ("ORGANIZATION", "LOCATION.ORGANIZATION", "organization"),
    ("NRP", "OTHER", "nationality, religious or political group"),
    ("TITLE", "OTHER", "title / honorific (presidio-research)"),
    ("DATE_TIME", "DATE", "date or time"),
    ("AGE", "AGE", "age (presidio-research)"),
    ("PHONE_NUMBER", "CONTACT.PHONE", "phone number"),
    ("EMAIL_ADDRESS", "CONTACT.EMAIL", "e-mail address"),
    ("URL", "CONTACT.URL", "URL"),
    ("DOMAIN_NAME", "CONTACT.URL", "domain name (presidio-research)"),
    ("IP_ADDRESS", "CONTACT.IPADDR", "IP address"),
    ("MEDICAL_LICENSE", "ID.LICENSE", "medical licence number"),
    ("US_SSN", "ID.SSN", "US social security number"),
    ("US_ITIN", "ID.SSN", "US individual taxpayer id"),
    ("US_PASSPORT", "ID.IDNUM", "US passport"),
    ("US_DRIVER_LICENSE", "ID.LICENSE", "US driver licence"),
    ("US_BANK_NUMBER", "ID.ACCOUNT", "US bank account"),
    ("CREDIT_CARD", "ID.ACCOUNT", "credit card number"),
    ("CRYPTO", "ID.ACCOUNT", "crypto wallet"),
    ("IBAN_CODE", "ID.ACCOUNT", "IBAN"),
    ("UK_NHS", "ID.HEALTHPLAN", "UK NHS number"),
    ("ES_NIF", "ID.SSN", "Spanish NIF / DNI"),
    ("ES_NIE", "ID.SSN", "Spanish NIE"),
    ("IT_FISCAL_CODE", "ID.SSN", "Italian fiscal code"),
    ("SG_NRIC_FIN", "ID.SSN", "Singapore NRIC"),
    ("AU_TFN", "ID.SSN", "Australian tax file number"),
    ("AU_MEDICARE", "ID.HEALTHPLAN", "Australian Medicare number"),
    ("IN_AADHAAR", "ID.SSN", "Indian Aadhaar"),
    ("NL_BSN", "ID.SSN", "Dutch citizen service number (BSN)"),
    ("SE_PERSONNUMMER", "ID.SSN", "Swedish personal identity number"),
], preferred={"LOCATION.COUNTRY": "LOCATION", "LOCATION.HOSPITAL": "ORGANIZATION"})


#: HIPAA Safe Harbor's 18 identifiers, in the order of the regulation.
HIPAA_IDENTIFIERS: tuple[str, ...] = tuple(get_scheme("hipaa").labels)
