"""Label dictionaries of the rules extractor: multilingual keywords and value patterns.

This module owns the words that introduce invoice fields (English, German, French, Dutch,
Spanish, Chinese, Thai, Malay receipts) as ``LABELS`` (kind, weight, pattern), and the patterns
that recognise company names, e-mail addresses, URLs, phone numbers, postcodes and VAT ids.
Pure data and regular expressions; pipeline must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

import re

from pipeline.values.parsers import thai_variants

# (kind, weight, pattern). Kinds are schema fields or helpers: "rounding", "ignore" (a label
# whose value must not be taken by a neighbour: quantities, cash tendered, ids of other
# things), "other_date", "customer", "vendor", "customer_tax_id". Longer matches win over
# shorter ones at the same place, so "Total HT" is a subtotal and never a total.
S = r"[\s.\-]*"  # OCR drops spaces, PDFs insert them: words may be glued or split


LABELS: list[tuple[str, float, str]] = [
    # totals
    (
        "total_amount",
        3.0,
        rf"(?<![a-z])(?:grand{S}tota[l1]|total{S}factur[ea]|total{S}amount(?:{S}due)?|amount{S}due|total{S}due|total{S}payable"
        rf"|amount{S}payable|total{S}(?:to{S})?pay|invoice{S}total|total{S}invoice|nett{S}total"
        rf"|(?:net{S})?total{S}(?:amt{S})?rounded|rounded{S}total|total{S}[il]ncl?\w*\.?(?:{S}of)?{S}(?:gst|vat|tax|ggt)"
        # Guardian's "TOTAL (GST INCL) 2.56": the tax word qualifies the total, as "Total incl. GST"
        rf"|total{S}\({S}(?:gst|vat|tax){S}[il1]ncl\w*\.?{S}\)"
        rf"|total{S}sales{S}\(?{S}[il]ncl\w*(?:{S}of)?{S}gst\)?|total{S}ttc|montant{S}ttc|net{S}[àa]{S}payer"
        rf"|total{S}[àa]{S}payer|somme{S}[àa]{S}payer|montant{S}total(?!{S}ht)|gesamtbetrag(?!{S}der)|gesamtsumme"
        rf"|rechnungsbetrag|bruttosumme|bruttobetrag|endbetrag|rechnungssumme(?!{S}(?:ohne|netto))|summe{S}brutto"
        # FeRD's "Rechnungssumme Brutto (inkl. USt.)": the tax word qualifies the total
        rf"|rechnungssumme{S}brutto(?:{S}\(?{S}inkl\w*\.?{S}(?:ust|mwst)\.?\)?)?"
        rf"|te{S}betalen|totaal{S}[il]ncl\w*(?:{S}btw)?|factuur{S}totaal|totaalbedrag|importe{S}total"
        rf"|total{S}a{S}pagar|total{S}factura|价税合计|合\s*计|总\s*计|總\s*計|应付金额|รวมทั้งสิ้น|ยอดรวมสุทธิ"
        rf"|จำนวนเงินรวม|ยอดสุทธิ|jumlah{S}besar|total{S}after{S}(?:adj|round)\w*(?:{S}[il]ncl\w*{S}gst)?"
        rf"|gesamt{S}brutto|(?<![a-z])zu{S}zahlen|net{S}ttc|montant{S}[àa]{S}payer|totale{S}(?:documento|fattura|da{S}pagare)"
        rf"|netto{S}a{S}pagare|(?<![a-z])da{S}pagare|ยอดที่ต้องชำระ"
        # a credit note's total: what is credited
        rf"|total{S}credit(?:ed)?|credit{S}(?:note{S})?total|gutschriftsbetrag|gutschriftssumme|erstattungsbetrag"
        rf"|total{S}(?:de{S}l'|de{S}l{S})?avoir|montant{S}(?:de{S}l'|de{S}l{S})?avoir|creditbedrag|totaal{S}credit"
        rf"|total{S}abono|importe{S}(?:del{S})?abono|totale{S}nota{S}di{S}credito)",
    ),
    (
        "total_amount",
        2.0,
        rf"(?<![a-z])tota[l1](?![a-z])(?!{S}(?:qty|quantity|items?|tem|excl|ht|net|tax|vat|gst|discount|savings))"
        rf"(?!{S}\({S}(?:qty|quantity|items?|excl|ht|net))"
        rf"|(?<![a-z])totaal(?![a-z])|(?<![a-z])summe(?![a-z])|(?<![a-z])jumlah(?![a-z])"
        rf"|(?<![a-z])totale(?![a-z])(?!{S}(?:merce|righe|imponibile|iva|imposta|sconto))",
    ),
    (
        "balance_amount",
        3.0,
        rf"balance{S}due|balance(?:{S}\(?{S}if{S}any{S}\)?)?|zahlbetrag|restbetrag|offener{S}betrag"
        rf"|solde{S}[àa]{S}payer|reste{S}[àa]{S}payer|openstaand(?:{S}bedrag)?|saldo|amount{S}outstanding"
        rf"|noch{S}zu{S}zahlen|nog{S}te{S}betalen|solde{S}d[ûu]|importe{S}pendiente|pendiente{S}de{S}pago|residuo|未付金额|待付金额"
        rf"|ยอดค้างชำระ|คงเหลือชำระ",
    ),
    (
        "paid_amount",
        3.0,
        rf"amount{S}pa[il1]d|pa[il1]d{S}amount|total{S}pa[il1]d|payment{S}received|erhaltene{S}anzahlungen?"
        rf"|anzahlung(?:en)?|bereits{S}bezahlt|d[ée]j[àa]{S}pay[ée]|acompte{S}vers[ée]|reeds{S}betaald"
        rf"|voldaan|prepaid|less{S}paid|deposit(?:{S}received)?|bezahlt|betrag{S}erhalten|montant{S}r[ée]gl[ée]"
        rf"|(?<![a-z])r[ée]gl[ée](?![a-z])|(?<![a-z])pay[ée](?![a-z])|acompte(?:{S}re[çc]u)?|d[ée]j[àa]{S}r[ée]gl[ée]"
        rf"|(?<![a-z])betaald|aanbetaling|vooruitbetaling|importe{S}pagado|pagado(?:{S}a{S}cuenta)?|cobrado"
        rf"|anticipo|entregado{S}a{S}cuenta|importo{S}pagato|pagato|saldato|acconto(?:{S}ricevuto)?"
        rf"|gi[àa]{S}pagato|已付款|已收款|实付金额|预付款|已付定金|已付金额|ชำระแล้ว|รับชำระ|(?:หัก)?เงินมัดจำ",
    ),
    (
        "subtotal",
        3.0,
        # "5 Item(s) Total (MYR) : 20.00": the items' sum before the tax, the total below it
        # ("Net Total Rounded (MYR) : 21.20"); a table's "QTY ITEM TOTAL" heading has no (s)
        rf"sub{S}-?{S}tota[l1]|(?<![a-z])item(?:\(s\)|s){S}tota[l1]|subtotaal|zwischensumme|nettobetrag|netto{S}betrag|summe{S}netto"
        rf"|total{S}ht|montant{S}ht|total{S}hors{S}taxes?|total{S}\(?{S}(?:excl?\w*|exkl\w*|net|before{S}tax)\.?"
        rf"(?:{S}of)?(?:{S}(?:gst|vat|tax|btw|mwst|ust))?\)?|total{S}sales{S}\(?{S}excl\w*(?:{S}of)?{S}gst\)?"
        rf"|net{S}amount|net{S}total|exclusief{S}btw|excl\.?{S}btw|totaal{S}excl\w*(?:{S}btw)?"
        rf"|positionssumme|summe{S}positionen|rechnungssumme{S}ohne{S}ust\.?|warenwert|grondslag|base{S}ht"
        rf"|rechnungssumme{S}netto(?:{S}\(?{S}(?:exc?l|exkl)\w*\.?{S}(?:ust|mwst)\.?\)?)?"
        rf"|importe{S}neto|(?:total{S})?base{S}imp(?:onible|\.)|小\s*计|不含税金额|金额合计|ราคาก่อนภาษี|รวมเงิน"
        rf"|sous{S}-?{S}total(?:{S}ht)?|total{S}brut(?:{S}ht)?|totaal{S}artikelen|netto{S}bedrag|(?<![a-z])suma(?![a-z])"
        rf"|importe{S}bruto|totale{S}(?:merce|righe|imponibile)|tot\.?{S}imponibile|imponibile|มูลค่าสินค้า"
        rf"|(?<![\u0e00-\u0e7f])รวม(?![\u0e00-\u0e7f])|gesamt{S}netto|nettosumme",
    ),
    (
        "tax_amount",
        2.0,
        rf"(?<![a-z])(?:sales{S})?tax(?:es)?(?![a-z])|(?<![a-z])vat(?![a-z])|(?<![a-z])gst(?![a-z])"
        rf"|mwst\.?|(?<![a-z])ust\.?(?![a-z])|umsatzsteuer(?:betrag)?|steuerbetrag|mehrwertsteuer"
        rf"|(?<![a-z])tva(?![a-z])|(?<![a-z])btw(?![a-z])|(?<![a-z])iva(?![a-z])|税\s*额(?:合计)?|税\s*金"
        rf"|ภาษีมูลค่าเพิ่ม|total{S}(?:gst|vat|tax(?:es)?|tva|mwst)|tax{S}amount|montant{S}tva|btw{S}bedrag"
        rf"|cuota{S}iva|vat{S}amount|gst{S}amount|total{S}iva|imposta|增值税(?!专用|普通|电子|发票)",
    ),
    (
        "discount",
        2.0,
        rf"discount|rabatt|nachlass|gesamtbetrag{S}der{S}abschl[äa]ge|abschl[äa]ge|remise|r[ée]duction"
        rf"|korting|descuento|折\s*扣|ส่วนลด|credits?(?![a-z])|escompte|(?<![a-z])dto\.?(?:{S}pronto{S}pago)?|sconto"
        rf"|abbuono|优\s*惠",
    ),
    (
        "shipping_cost",
        2.0,
        rf"shipping(?:{S}(?:&|and){S}handling)?|delivery(?:{S}(?:charges?|fee))?|freight|postage"
        rf"|versandkosten|versand|fracht|porto|frais{S}de{S}port|frais{S}d.envoi|livraison"
        rf"|verzendkosten|verzending|gastos{S}de{S}env[ií]o|env[ií]o|运\s*费|ค่าขนส่ง|bezorgkosten|vracht|portes"
        rf"|transporte|spese{S}di{S}(?:spedizione|trasporto)|trasporto|配送费|物流费|ค่าจัดส่ง",
    ),
    ("shipping_cost", 1.0, rf"gesamtbetrag{S}der{S}zuschl[äa]ge|zuschl[äa]ge"),
    (
        "service_charge",
        2.0,
        rf"service{S}charge|s(?:e?rv|vc){S}ch(?:g|arge)|service{S}fee|servicegeb[üu]hr|frais{S}de{S}service|服务费"
        rf"|ค่าบริการ|bearbeitungsgeb[üu]hr|frais{S}de{S}dossier|servicekosten|administratiekosten"
        rf"|cargo{S}por{S}servicio|gastos{S}de{S}gesti[oó]n|spese{S}di{S}servizio|spese{S}incasso",
    ),
    ("rounding", 2.0, rf"rounding(?:{S}adj\w*)?|round{S}adj\w*|arrondi|rundung|afronding|redondeo"),
    (
        "ignore",
        1.0,
        rf"total{S}(?:qty|quantity|items?|tem\w*)|(?<![a-z])qty|item\(?s?\)?:|(?<![a-z])cash(?:{S}change)?"
        rf"|(?<![a-z])accepted(?:{S}tota[l1])?"  # a parking machine's coins and notes taken in ("Accepted total 10.00")
        rf"|change(?:{S}due)?|tendered|^\W*received(?![a-z])|(?<![a-z])visa|mastercard|points|prijzen{S}zijn{S}[il]nclusief{S}btw"
        rf"|[il]ncl\w*\.?{S}(?:of{S})?(?:\d+%{S})?(?:gst|vat|btw|mwst)|(?:gst|vat){S}[il]nc(?:l\w*)?\.?(?![a-z])"
        rf"|payment(?:{S}mode)?:?|rate(?![a-z])|pax",
    ),
    # ids and dates
    (
        "invoice_number",
        3.0,
        rf"(?<![a-zäöü\-])(?:invoice{S}(?:no|num(?:ber)?|nr|#|n°|n[oº]|id)\.?|inv{S}no\.?|bill{S}no\.?|receipt{S}no\.?"
        rf"|doc(?:ument)?{S}no\.?|rechnungs{S}?(?:nr|nummer|no)\.?|rechnung{S}(?:nr|#)\.?|beleg{S}?nr\.?"
        rf"|belegnummer|factuur{S}?(?:nummer|nr)\.?|n°{S}de{S}facture|num[ée]ro{S}de{S}facture"
        rf"|facture{S}n°|num[eé]ro{S}de{S}factura|factura{S}n[oº°]\.?|发票号码|发票号|單\s*號|单\s*号"
        rf"|เลข[ทก]ี่?{S}?(?:ใบกำกับภาษี|ใบเสร็จ|เอกสาร)|no\.?{S}invois|invoice{S}#"
        # receipts and the Romance languages' "number of the invoice" ("Reçu n°", "Numero fattura")
        rf"|(?:receipt|re[cç]u|recibo|ricevuta|quittung|ticket){S}(?:#|n[o°º2]\.?|n\s?\.|nr\.?|number|num[ée]ro)"
        rf"|num[eé]ro{S}(?:de{S})?(?:fattura|factura|documento|recibo|ricevuta)|fattura{S}n[°o]\.?"
        rf"|n\.?{S}documento|单据编号|小票号|票据号|收据编号|通知单编号"
        # credit notes, till receipts and cash bills: their own number ("Gutschriftsnummer",
        # "Nota di credito n.", "Bonnr.", "N° de ticket", "CS No", "Documento n.")
        rf"|(?:gutschrift|credit{S}note|creditnota|nota{S}di{S}credito|avoir|abono|documento|scontrino|fattura"
        rf"|bon|kassabon|ticket|transactie|cs|cash{S}bill|cash{S}sale)"
        rf"{S}(?:s?nummer|s?nr\.?|n[o°º]\.?|n\s?\.|#|number|num[ée]ro)(?:{S}(?:fattura|factura|facture|documento))?"
        rf"|n[°ºo]\.?{S}(?:de{S})?(?:abono|ticket|avoir|reçu|recibo|rectificativa)|n[°º]{S}d'avoir|bonnummer|bonnr\.?|transactie(?![a-z]))",
    ),
    (
        "invoice_number",
        1.5,
        rf"(?<![a-z])(?:invoice|factuur|facture|rechnung|factura|avoir|credit{S}note|gutschrift"
        rf"|\w+rechnung|rechnungskorrektur)(?![a-z])|(?<![a-z])nr\.(?![a-z])|เล[ขย][ทก]ี่?|^\W*nummer(?![a-z])"
        rf"|^\W*n[uú]m[eé]ro(?![a-z])",
    ),
    (
        "invoice_date",
        3.0,
        rf"invoice{S}date|date{S}of{S}(?:invoice|issue)|issue{S}date|date{S}issued|bill{S}date"
        rf"|rechnungsdatum|belegdatum|datum{S}der{S}rechnung|factuur{S}?datum|date{S}de{S}(?:la{S})?facture"
        rf"|fecha{S}de{S}(?:factura|emisi[oó]n)|data{S}fattura|开票日期|发票日期|วันที่ออกใบกำกับ"
        rf"|tarikh{S}invois",
    ),
    (
        "invoice_date",
        2.0,
        r"(?<![a-z])(?:date|datum|fecha|data|tarikh|dale|dated)(?![a-z])|日\s*期|วันที่|(?<![a-z])vom(?![a-z])"
        r"|(?<=\d)\s+du(?![a-z])",
    ),
    (
        "due_date",
        3.0,
        rf"due{S}date|date{S}due|payment{S}due|pay{S}by|due(?:{S}on)?(?![a-z])|f[äa]lligkeitsdatum|f[äa]llig{S}am"
        rf"|f[äa]lligkeit(?![a-z])"
        rf"|zahlungsziel|zahlbar{S}bis|vervaldatum|vervaldag|date{S}d.[ée]ch[ée]ance|[ée]ch[ée]ance"
        rf"|date{S}limite{S}de{S}paiement|fecha{S}de{S}vencimiento|vencimiento|到期日|付款期限"
        rf"|ครบกำหนดชำระ|วันครบกำหนด|กำหนดชำระ|(?:ชำระ)?ภายในวันที่|data{S}(?:di{S})?scadenza|scadenza|scad\.|付款截止日期|付款日期"
        rf"|uiterste{S}betaaldatum|te{S}betalen{S}v[oó][oó]r|[àa]{S}r[ée]gler{S}avant(?:{S}le)?|(?<![a-z])vence",
    ),
    (
        "other_date",
        3.0,
        rf"order{S}date|delivery{S}date|ship(?:ping)?{S}date|leistungsdatum|lieferdatum|liefer-?{S}und"
        rf"{S}leistungsdatum|orderdatum|besteldatum|leverdatum|date{S}de{S}(?:livraison|commande)"
        rf"|check{S}in|check{S}out|billing{S}period|abrechnungszeitraum|period(?:e)?|zeitraum|bis"
        rf"|fecha{S}de{S}entrega|printed|(?<![a-z])time(?![a-z])|date{S}de{S}prestation|fecha{S}de{S}servicio"
        rf"|data{S}(?:di{S})?consegna|交货日期|发货日期|วันที่ส่งของ",
    ),
    (
        "ignore",
        2.0,
        rf"customer{S}(?:no|number|id)\.?|kunden{S}?(?:nr|nummer)\.?|klant{S}?nummer|order{S}(?:no|number|id)\.?"
        rf"|ordernummer|bestell(?:ung|nummer|nr)\.?|account{S}(?:no|number)\.?|po{S}(?:no|number)\.?"
        rf"|reference|referenz|r[ée]f[ée]rence|booking{S}id|contract{S}no\.?|iban|bic|swift|kvk"
        rf"|telefon|phone|tel\.?|fax|gln|nummer|siret|siren|ape|rcs|blz|kto-?nr\.?|hrb|registergericht"
        rf"|uw{S}referentie|votre{S}r[ée]f[ée]rence|lieferavis|w[äa]hrung|currency|devise|valuta|ship{S}to|deliver{S}to|lieferadresse|lieferanschrift|adresse{S}de{S}livraison"
        rf"|afleveradres|delivery{S}address|shipping{S}address|lieferschein|token{S}no|cashier|operator",
    ),
    (
        "vendor_tax_id",
        3.0,
        rf"vat{S}(?:reg(?:istration)?{S})?(?:no|number|id)\.?|vat{S}id|ust{S}-?{S}[il1]d(?:ent)?{S}-?{S}(?:nr)?\.?"
        rf"|ust[il1]d(?:nr)?\.?|umsatzsteuer{S}-?{S}id\w*|n°{S}(?:de{S})?tva(?:{S}intra{S}?communautaire)?"
        rf"|tva{S}intra{S}?communautaire|btw{S}?(?:nummer|nr|id)\.?|gst{S}(?:reg{S})?(?:no|id)\.?"
        rf"|gst{S}reg\w*{S}no\.?|gstin|tax{S}(?:id|reg\w*)(?:{S}no)?\.?|(?<![a-z])tin(?![a-z])|nif|cif"
        rf"|税\s*号|纳税人识别号|เลขประจำตัวผู้เสียภาษี",
    ),
    (
        "vendor_tax_id",
        1.5,
        rf"steuernummer|steuer{S}-?{S}nr\.?|(?<![a-z])tva(?![a-z])|(?<![a-z])btw(?![a-z])|(?<![a-z])vat(?![a-z])",
    ),
    (
        "customer_tax_id",
        3.0,
        rf"uw{S}btw{S}nummer|n°{S}tva{S}client|your{S}vat|customer{S}vat|votre{S}n°{S}tva"
        rf"|ihre{S}ust{S}-?{S}[il1]d(?:ent)?{S}-?{S}(?:nr)?\.?",
    ),
    (
        "payment_terms",
        3.0,
        rf"payment{S}terms|terms{S}of{S}payment|zahlungsbedingungen|conditions{S}de{S}(?:paiement|r[èe]glement)"
        rf"|betalingsvoorwaarden|betalingstermijn|condiciones{S}de{S}pago|付款条件|เงื่อนไขการชำระเงิน",
    ),
    (
        "customer",
        3.0,
        rf"bill(?:ed)?{S}to|invoice(?:d)?{S}to|sold{S}to|customer(?![a-z]{S}?(?:no|nr|number|id))|client(?!{S}(?:no|nr))"
        rf"|buyer|k[äa]ufer(?:{S}/{S}leistungsempf[äa]nger)?|rechnungsempf[äa]nger|leistungsempf[äa]nger"
        rf"|factuuradres|gefactureerd(?:{S}aan)?|factuur{S}aan|adresse{S}de{S}facturation|facturé{S}[àa]"
        rf"|destinataire|facturar{S}a|cliente"
        rf"|购买方|购货单位|^购\s+名\s*称|客\s*户|ลูกค้า|ผู้ซื้อ|billing{S}address|guest{S}name"
        rf"|rechnungs{S}?(?:adresse|anschrift)|liefer{S}?(?:adresse|anschrift)|ship(?:ped)?{S}to|deliver{S}to"
        rf"|intestatario|destinatario|spett(?:\.|abi)le|facturado{S}a|datos{S}del{S}cliente|(?<![a-z])aan{S}?:"
        rf"|(?<![a-z])kunde(?![a-zn])",
    ),
    (
        "vendor",
        3.0,
        rf"(?<![a-z])seller|(?<![a-z])vendor|supplier|sold{S}by|verk[äa]ufer|rechnungsersteller|leverancier"
        rf"|vendeur|fournisseur|emisor|proveedor|销售方|销货单位|^销\s+名\s*称|卖\s*方|ผู้ขาย|service{S}provider",
    ),
]


# What was tendered and what was given back, in the languages of the lexicon: a total printed
# again beside them is no total ("Gegeben 100,00", "Entregado 80,00", "เงินสด 13,650.00"). The
# scorer's cash and change features (``pipeline.decision.candidates``) and the vendor profile's
# tender labels (``pipeline.profiles.lessons``) read these.
CASH_RE = re.compile(
    r"(?<![a-z])(?:cash|tunai|tendered|received|accepted|bayar|esp[eè]ces|bar(?:geld)?|gegeben|contant|efectivo|entregado"
    r"|contant[ei])(?![a-z])|现\s*金|实\s*收|เงินสด|รับเงิน",
    re.I,
)
CHANGE_RE = re.compile(
    r"(?<![a-z])(?:change|baki|rendue?|r[üu]ckgeld|zur[üu]ck|wisselgeld|terug|cambio|devoluci[óo]n|resto)(?![a-z])"
    r"|找\s*[零赎]|(?:เงิน)?ทอน",
    re.I,
)


LABEL_RES = [(kind, weight, re.compile(thai_variants(pattern), re.I)) for kind, weight, pattern in LABELS]


TITLE_RE = re.compile(
    r"^\W*(?:tax\s*invoice|invoice|facture|factuur|rechnung|receipt|bill|kopie\s+factuur|copy)\W*$|"
    r"(?<![a-z])(?:(?:payment|cash|sales|official|tax)\s+)?(?:invoice|facture|factuur|rechnung|receipt)(?![a-z])\W*",
    re.I,
)


COMPANY_RE = re.compile(
    thai_variants(
        r"\b(?:GmbH|AG|KG|OHG|e\.?\s?K\.?|mbH|Inc\.?|Incorporated|Ltd\.?|Limited|LLC|LLP|PLC|Corp\.?|Corporation|Co\.|"
        r"BHD\.?|B\.?\s?V\.?|N\.?\s?V\.?|S\.?\s?A\.?|SARL|S\.?A\.?S\.?|SAS|SRL|S\.?L\.?|S\.?p\.?A\.?|"
        r"Pty\.?|Pvt\.?|Pte\.?|a\.\s?G\.|(?-i:e\.\s?G\.|eG)|GbR|KGaA|Oy|AB|A/S|ApS|VOF|Ltda\.?|"
        r"S\.\s?Com\.?|S\.\s?Coop\.?|S\.?\s?r\.?\s?l\.?|s\.\s?r\.\s?o\.|Sp\.\s?z\s?o\.\s?o\.|"
        r"บริษัท|จำกัด)(?![\w])|S[DO]N\.?\s*[BR8][HR][DZO]\.?"
        # CJK legal forms stand between CJK characters, which are word characters: no \b
        r"|(?:股份)?有限(?:责任)?公司"
    ),
    re.I,
)


# Labels of numbers that are not the invoice's: company registration, tax and bank numbers,
# phones, times, cashier and terminal codes (Malaysian receipts print several of them near the
# top). A value printed right after one of these is not an invoice number.
OTHER_ID_RE = re.compile(
    r"(?<![a-z])(?:co(?:mpany)?\W*r[ef]g\w*|reg(?:istration)?\W*n[o0]|br\W*n[o0]|roc\W*n[o0]|ssm|gst\W*(?:id|reg)\w*"
    r"|tax\W*id|tin|vat\W*(?:n[o0]|id|reg)\w*|iban|bic|swift|bank|a/?c\W*n[o0]|account\W*n[o0]|tel|phone|fax|hp"
    r"|t[il1][mn]e|cashier|salesperson|s/p|staff|terminal|table|pos\W*id|customer\W*(?:n[o0]|id)|order\W*n[o0]"
    r"|po\W*n[o0]|pat|zu\s*rechnung|rectifica\s*a\s*la\s*factura|betreft\s*factuur|referenced?\s*invoice"
    r"|original\s*invoice|facture\s*d'origine|fattura\s*di\s*riferimento|bezug\w*\s*rechnung)(?![a-z])(?:\W*(?:n[o0]|nr|number|#)(?![a-z]))?\W*$",
    re.I,
)
# Labels of the invoice's own number, OCR spellings included ("Raceipt#", "Bi11No.").
INVOICE_NUMBER_RE = re.compile(
    r"(?<![a-z])(?:invoice|inv|bill|bi[l1]{2}|r[ae]?[ce]{1,2}ipt|doc(?:ument)?|rechnung\w*|facture|factuur|factura"
    r"|cb|ref|no|nr|n°|#)\W*(?:no|nr|num(?:ber)?|#|n°)?\W*$",
    re.I,
)

EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


URL_RE = re.compile(r"\b(?:https?://|www\.)\S+|\b\S+\.(?:com|de|fr|nl|net|org|my)\b", re.I)


# A salutation a letter's address block sets on a line of its own above the addressee's name.
SALUTATION_RE = re.compile(
    r"herrn?|frau|mr\.?|mrs\.?|ms\.?|monsieur|madame|mme\.?|sig\.(?:ra)?|signora?|dhr\.?|mevr\.?|sr\.?|sra\.?",
    re.I,
)


# A copyright notice ("(c) FeRD 2022", "© 2020 ACME", "Alle Rechte vorbehalten"): it names who
# holds the rights to a form or its software (FeRD's sample invoices print one at the top of the
# page), never the seller. "(c)" counts only with a year after it: "(C)" is a letter elsewhere.
COPYRIGHT_RE = re.compile(
    r"(?:©|\(c\))\s*(?:[^\n]{0,40}?)\b(?:19|20)\d{2}\b|\bcopyright\b|all\s+rights\s+reserved"
    r"|alle\s+rechte\s+vorbehalten|tous\s+droits\s+r[ée]serv[ée]s",
    re.I,
)


PHONE_RE = re.compile(r"(?:tel|phone|fax|telefon|t\.|f\.)\W*[+\d(]", re.I)


# Street words: "1242 chemin de l'olive" and "4557 De Silva St" start with a house number, not a postcode.
STREET_WORDS = (
    r"st|street|rd|road|ave|avenue|blvd|boulevard|lane|ln|drive|dr|way|place|pl|court|ct|highway|hwy"
    r"|rue|chemin|all[ée]e|impasse|quai|jalan|jln|lorong|lrg|persiaran|lebuh|stra(?:ss|ß)e|str|weg|gasse"
    r"|platz|laan|straat|plein|gracht|calle|avenida|via|viale|piazza"
)
POSTCODE_RE = re.compile(
    r"(?:^|[\s,])(?:[A-Z]{1,2}[- ]?)?\d{4,6}(?:-\d{4})?\s*,?\s*"
    rf"(?![A-Za-zÀ-ÿ .'-]*(?<![A-Za-zÀ-ÿ])(?i:{STREET_WORDS})(?![A-Za-zÀ-ÿ]))[A-ZÀ-Ý][A-Za-zÀ-ÿ]+|"
    r"\b\d{4}\s?[A-Z]{2}\b|[A-Za-z]+,?\s+[A-Z]{2}\s+\d{5}\b|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b"
)


# Labels glue onto the id in OCR and some layouts ("BTWNL810433941B01", "UStIdNrDE...").
VAT_RE = re.compile(
    r"(?:\b|(?<=BTW)|(?<=TVA)|(?<=VAT)|(?<=USt)|(?<=UST)|(?<=IdNr))(?:ATU\d{8}|BE\s?0?\d{3}[.\s]?\d{3}[.\s]?\d{3}|DE\s?\d{3}\s?\d{3}\s?\d{3}|"
    r"FR\s?[0-9A-Z]{2}\s?\d{3}\s?\d{3}\s?\d{3}|NL\s?\d{4}[.\s]?\d{2}[.\s]?\d{3}[.\s]?B[.\s]?\d{2}|"
    r"(?:ES|IT|PT|PL|SE|DK|FI|IE|LU|CZ|GB|CHE)[-\s]?[0-9A-Z][0-9A-Z.\s-]{7,14}\d|"
    r"\d{2}[A-Z]{5}\d{4}[A-Z]\d[A-Z\d]{2})\b"
)


ID_TOKEN_RE = re.compile(r"#?[A-Za-z0-9][A-Za-z0-9/_\-.]*[A-Za-z0-9]|\d")
# A country on its own line ends an address; e-invoices keep it in a separate country code.
COUNTRY_RE = re.compile(
    r"^\W*(?:germany|deutschland|france|frankreich|nederland|netherlands|the\s+netherlands|holland|belgi(?:um|que|ë)"
    r"|luxemb(?:o|ou)rg|[öo]sterreich|austria|schweiz|suisse|switzerland|espa[ñn]a|spain|italia|italy|portugal"
    r"|danmark|denmark|sverige|sweden|norge|norway|polska|poland|ireland|united\s+kingdom|uk|great\s+britain"
    r"|united\s+states(?:\s+of\s+america)?|usa|u\.s\.a\.|canada|australia|india|china|singapore|thailand"
    r"|malaysia)\W*$",
    re.I,
)
